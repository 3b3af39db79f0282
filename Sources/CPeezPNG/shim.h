#ifndef PEEZ_PNG_SHIM_H
#define PEEZ_PNG_SHIM_H
#include <png.h>
#endif
