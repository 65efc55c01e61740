/*
** test_crc32c.c -- CRC-32C: published vectors, chaining, and agreement of the crc32 instruction
** path with the table path for every length and alignment that matters.
*/
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"

/* RFC 3720 (iSCSI) appendix B.4 vectors plus the customary "123456789" check value. */
Test(crc32c, known_vectors) {
    unsigned char buf[48];
    cr_assert_eq(crc32c(0, "123456789", 9), 0xE3069283u);
    cr_assert_eq(crc32c_sw(0, "123456789", 9), 0xE3069283u);
    cr_assert_eq(crc32c(0, "", 0), 0u);
    cr_assert_eq(crc32c(0, "a", 1), 0xC1D04330u);
    memset(buf, 0, 32);
    cr_assert_eq(crc32c(0, buf, 32), 0x8A9136AAu);
    memset(buf, 0xff, 32);
    cr_assert_eq(crc32c(0, buf, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++) buf[i] = (unsigned char)i;
    cr_assert_eq(crc32c(0, buf, 32), 0x46DD794Eu);
    cr_assert_eq(crc32c_sw(0, buf, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; i++) buf[i] = (unsigned char)(31 - i);
    cr_assert_eq(crc32c(0, buf, 32), 0x113FDB5Cu);
    static const unsigned char iscsi_read[48] = {
        0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
        0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    cr_assert_eq(crc32c(0, iscsi_read, 48), 0xD9963A56u);
    cr_assert_eq(crc32c_sw(0, iscsi_read, 48), 0xD9963A56u);
}

Test(crc32c, chaining_equals_whole) {
    unsigned char buf[300];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 131 + 7);
    uint32_t whole = crc32c(0, buf, sizeof buf);
    for (size_t cut = 0; cut <= sizeof buf; cut++) {
        cr_assert_eq(crc32c(crc32c(0, buf, cut), buf + cut, sizeof buf - cut), whole, "cut %zu", cut);
        cr_assert_eq(crc32c_sw(crc32c(0, buf, cut), buf + cut, sizeof buf - cut), whole, "cut %zu", cut);
    }
}

Test(crc32c, detects_single_bit_flip) {
    unsigned char buf[8192];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i ^ (i >> 8));
    uint32_t good = crc32c(0, buf, sizeof buf);
    for (size_t bit = 0; bit < sizeof buf * 8; bit += 997) {
        buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        cr_assert_neq(crc32c(0, buf, sizeof buf), good, "bit %zu", bit);
        buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    }
}

/* The instruction path (when the CPU has it) and the table path agree on random data at every
** start alignment and on lengths around the 8-byte steps, chained or not. */
Test(crc32c, hardware_matches_table) {
    enum { MAX = 20000 }; /* several rounds of the instruction path's three 512-byte lanes */
    unsigned char *buf = malloc(MAX + 16);
    cr_assert_not_null(buf);
    srand(12345);
    for (size_t i = 0; i < MAX + 16; i++) buf[i] = (unsigned char)rand();
    cr_log_info("crc32c uses the %s", crc32c_hw_available() ? "crc32 instruction" : "table");
    for (size_t align = 0; align < 16; align++)
        for (size_t n = 0; n < 80; n++)
            cr_assert_eq(crc32c(0, buf + align, n), crc32c_sw(0, buf + align, n), "align %zu n %zu", align, n);
    for (int i = 0; i < 2000; i++) {
        size_t align = (size_t)rand() % 16, n = (size_t)rand() % MAX;
        uint32_t seed = (uint32_t)rand();
        cr_assert_eq(crc32c(seed, buf + align, n), crc32c_sw(seed, buf + align, n), "align %zu n %zu", align, n);
    }
    free(buf);
}
