/* ZBar's configuration for the web counter's WebAssembly decoder (scripts/zbar-wasm/build): QR codes only,
 * no threads, no video, no images from files. Written by hand in place of the autotools' config.h. */
#define ENABLE_QRCODE 1
#define HAVE_INTTYPES_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STRINGS_H 1
#define HAVE_MEMSET 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_ICONV 1
#define ICONV_CONST
#define NO_STATS 1
#define PACKAGE "zbar"
#define VERSION "0.23.92"
#define ZBAR_VERSION_MAJOR 0
#define ZBAR_VERSION_MINOR 23
#define ZBAR_VERSION_PATCH 92
#define X_DISPLAY_MISSING 1
#define __USE_UNIX98 1
