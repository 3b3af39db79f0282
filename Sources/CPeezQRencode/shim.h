#ifndef PEEZ_QRENCODE_SHIM_H
#define PEEZ_QRENCODE_SHIM_H
#include <qrencode.h>
#endif
