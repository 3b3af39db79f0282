#include <librsvg/rsvg.h>
#include <cairo.h>
#include <cairo-pdf.h>
