#ifndef SCANNERD_CCRYPTO_SHIM_H
#define SCANNERD_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto (Debian's libssl-dev), for SHA-256 alone: the compiled-network cache names a
   model by its digest and checks the files it wrote (Sources/InferenceRuntime/NetworkCache.swift). */
#include <openssl/evp.h>
#include <stddef.h>

/* SHA-256 of `size` bytes at `data` into `digest` (32 bytes): 1 on success. */
static inline int ccrypto_sha256(const void *data, size_t size, unsigned char *digest) {
    unsigned int length = 0;
    return EVP_Digest(data, size, digest, &length, EVP_sha256(), NULL) == 1 && length == 32;
}
#endif
