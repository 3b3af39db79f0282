#ifndef PEEZ_ZBAR_SHIM_H
#define PEEZ_ZBAR_SHIM_H
#include <zbar.h>
#endif
