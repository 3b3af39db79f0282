#ifndef PEEZ_OPENSSL_SHIM_H
#define PEEZ_OPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/crypto.h>

/// `BIO_get_mem_data` is a function-like macro; Swift cannot call it.
static inline long peez_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// `OPENSSL_free` is a function-like macro; Swift cannot call it.
static inline void peez_OPENSSL_free(void *pointer) {
    OPENSSL_free(pointer);
}

#endif
