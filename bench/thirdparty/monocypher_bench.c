/* Monocypher benchmark driver: BLAKE2b hashing, XChaCha20-Poly1305 AEAD
 * lock/unlock, X25519 key exchange and EdDSA (BLAKE2b) sign/check, all on
 * deterministic inputs; prints hex digests. */
#include "monocypher.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef BUF_SIZE
#define BUF_SIZE 65536
#endif
#ifndef HASH_ROUNDS
#define HASH_ROUNDS 40
#endif
#ifndef AEAD_ROUNDS
#define AEAD_ROUNDS 40
#endif
#ifndef DH_ROUNDS
#define DH_ROUNDS 20
#endif
#ifndef SIGN_ROUNDS
#define SIGN_ROUNDS 20
#endif

static uint8_t buf[BUF_SIZE], ct[BUF_SIZE], pt[BUF_SIZE];

static void hex(const char *label, const uint8_t *p, size_t n)
{
    printf("%s ", label);
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
    putchar('\n');
}

int main(void)
{
    uint32_t s = 0x12345678u;
    for (size_t i = 0; i < BUF_SIZE; i++) {
        s = s * 1664525u + 1013904223u;
        buf[i] = (uint8_t)(s >> 24);
    }

    /* 1. BLAKE2b chain over the buffer */
    uint8_t h[64];
    crypto_blake2b(h, 64, buf, BUF_SIZE);
    for (int r = 0; r < HASH_ROUNDS; r++) {
        memcpy(buf, h, 64); /* feed the digest back */
        crypto_blake2b(h, 64, buf, BUF_SIZE);
    }
    hex("blake2b", h, 64);

    /* 2. AEAD lock / unlock */
    uint8_t key[32], nonce[24], mac[16], ad[32];
    memcpy(key, h, 32);
    memcpy(nonce, h + 32, 24);
    memcpy(ad, h + 8, 32);
    uint8_t acc[64];
    memset(acc, 0, sizeof acc);
    for (int r = 0; r < AEAD_ROUNDS; r++) {
        nonce[0] = (uint8_t)r;
        crypto_aead_lock(ct, mac, key, nonce, ad, sizeof ad, buf, BUF_SIZE);
        if (crypto_aead_unlock(pt, mac, key, nonce, ad, sizeof ad, ct, BUF_SIZE) != 0 ||
            memcmp(pt, buf, BUF_SIZE) != 0) {
            printf("aead round-trip FAILED at %d\n", r);
            return 1;
        }
        for (int i = 0; i < 16; i++)
            acc[i] ^= mac[i];
        memcpy(buf, ct, BUF_SIZE); /* chain */
    }
    hex("aead-macs", acc, 16);
    crypto_blake2b(h, 32, ct, BUF_SIZE);
    hex("aead-ct-hash", h, 32);

    /* 3. X25519 */
    uint8_t ska[32], skb[32], pka[32], pkb[32], sh1[32], sh2[32];
    crypto_blake2b(ska, 32, buf, 100);
    crypto_blake2b(skb, 32, buf + 100, 100);
    for (int r = 0; r < DH_ROUNDS; r++) {
        crypto_x25519_public_key(pka, ska);
        crypto_x25519_public_key(pkb, skb);
        crypto_x25519(sh1, ska, pkb);
        crypto_x25519(sh2, skb, pka);
        if (memcmp(sh1, sh2, 32) != 0) {
            printf("x25519 mismatch at %d\n", r);
            return 1;
        }
        crypto_blake2b(ska, 32, sh1, 32); /* derive next keys */
        crypto_blake2b(skb, 32, ska, 32);
    }
    hex("x25519-shared", sh1, 32);

    /* 4. EdDSA sign / check */
    uint8_t seed[32], esk[64], epk[32], sig[64], sacc[64];
    memset(sacc, 0, sizeof sacc);
    memcpy(seed, sh1, 32);
    for (int r = 0; r < SIGN_ROUNDS; r++) {
        uint8_t seedcopy[32];
        memcpy(seedcopy, seed, 32);
        crypto_eddsa_key_pair(esk, epk, seedcopy);
        crypto_eddsa_sign(sig, esk, buf + r, 1000);
        if (crypto_eddsa_check(sig, epk, buf + r, 1000) != 0) {
            printf("eddsa check failed %d\n", r);
            return 1;
        }
        sig[5] ^= 1;
        if (crypto_eddsa_check(sig, epk, buf + r, 1000) == 0) {
            printf("eddsa forgery accepted %d\n", r);
            return 1;
        }
        sig[5] ^= 1;
        for (int i = 0; i < 64; i++)
            sacc[i] ^= sig[i];
        crypto_blake2b(seed, 32, sig, 64);
    }
    hex("eddsa-pk", epk, 32);
    hex("eddsa-sigs", sacc, 64);
    printf("done\n");
    return 0;
}
