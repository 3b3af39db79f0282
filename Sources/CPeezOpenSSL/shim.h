#ifndef PEEZ_OPENSSL_SHIM_H
#define PEEZ_OPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/crypto.h>
#include <openssl/cms.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>

/// `BIO_get_mem_data` is a function-like macro; Swift cannot call it.
static inline long peez_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// `OPENSSL_free` is a function-like macro; Swift cannot call it.
static inline void peez_OPENSSL_free(void *pointer) {
    OPENSSL_free(pointer);
}

/// `XN_FLAG_RFC2253` combines macros Swift cannot import.
static inline unsigned long peez_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }

/// The `STACK_OF(X509)` helpers are macros or inline functions Swift cannot call.
static inline STACK_OF(X509) *peez_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int peez_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
static inline void peez_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
static inline void peez_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }
static inline int peez_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *peez_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }

#endif
