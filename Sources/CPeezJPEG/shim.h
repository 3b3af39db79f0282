#ifndef PEEZ_JPEG_SHIM_H
#define PEEZ_JPEG_SHIM_H
#include <stdio.h>
#include <jpeglib.h>
#endif
