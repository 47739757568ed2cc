/* Tests for topo/parse: strict numbers and list expansion. */
#include <criterion/criterion.h>
#include <limits.h>

#include "util/parse.h"

Test(parse, long_values)
{
    long v;
    cr_assert_eq(parse_long("42", 0, 100, &v), PARSE_OK);
    cr_assert_eq(v, 42);
    cr_assert_eq(parse_long("1e6", 0, LONG_MAX, &v), PARSE_OK);
    cr_assert_eq(v, 1000000);
    cr_assert_eq(parse_long("", 0, 1, &v), PARSE_EMPTY);
    cr_assert_eq(parse_long("12x", 0, 100, &v), PARSE_SYNTAX);
    cr_assert_eq(parse_long("1.5", 0, 100, &v), PARSE_SYNTAX);
    cr_assert_eq(parse_long("-5", 2, 100, &v), PARSE_RANGE);
    cr_assert_eq(parse_long("99999999999999999999999", 0, LONG_MAX, &v), PARSE_RANGE);
    cr_assert_eq(parse_long("1e999", 0, LONG_MAX, &v), PARSE_RANGE);
    cr_assert_eq(parse_long("nan", 0, 100, &v), PARSE_SYNTAX);
    cr_assert_eq(parse_long(" 4", 0, 100, &v), PARSE_SYNTAX);
}

Test(parse, double_values)
{
    double v;
    cr_assert_eq(parse_double("6.67", 0, 1e9, &v), PARSE_OK);
    cr_assert_float_eq(v, 6.67, 1e-15);
    cr_assert_eq(parse_double("inf", 0, 1e9, &v), PARSE_SYNTAX);
    cr_assert_eq(parse_double("1e999", 0, 1e300, &v), PARSE_RANGE);
    cr_assert_eq(parse_double("-1", 0, 1, &v), PARSE_RANGE);
    cr_assert_eq(parse_double("0x10", 0, 100, &v), PARSE_SYNTAX);
}

Test(parse, lists)
{
    long out[64];
    size_t n, pos;
    cr_assert_eq(parse_list("1..4", PARSE_RANGE_STEP1, 1, 16, out, 64, &n, &pos), PARSE_OK);
    cr_assert_eq(n, 4);
    cr_assert_eq(out[3], 4);
    cr_assert_eq(parse_list("1,2,4", PARSE_RANGE_STEP1, 1, 16, out, 64, &n, &pos), PARSE_OK);
    cr_assert_eq(n, 3);
    cr_assert_eq(out[2], 4);
    cr_assert_eq(parse_list("1..65536", PARSE_RANGE_POW2, 1, 1L << 30, out, 64, &n, &pos), PARSE_OK);
    cr_assert_eq(n, 17);
    cr_assert_eq(out[16], 65536);
    cr_assert_eq(parse_list("64..4096:64", PARSE_RANGE_POW2, 1, 1L << 30, out, 64, &n, &pos), PARSE_OK);
    cr_assert_eq(n, 64);
    cr_assert_eq(out[63], 4096);
    cr_assert_eq(parse_list("4..1", PARSE_RANGE_STEP1, 1, 16, out, 64, &n, &pos), PARSE_ORDER);
    cr_assert_eq(parse_list("1..x", PARSE_RANGE_STEP1, 1, 16, out, 64, &n, &pos), PARSE_SYNTAX);
    cr_assert_eq(parse_list("1,,2", PARSE_RANGE_STEP1, 1, 16, out, 64, &n, &pos), PARSE_EMPTY);
    cr_assert_eq(pos, 2);
    cr_assert_eq(parse_list("0", PARSE_RANGE_STEP1, 1, 16, out, 64, &n, &pos), PARSE_RANGE);
    cr_assert_eq(parse_list("1..4:2", PARSE_RANGE_STEP1, 1, 16, out, 64, &n, &pos), PARSE_SYNTAX);
    cr_assert_eq(parse_list("1..1000", PARSE_RANGE_STEP1, 1, 10000, out, 64, &n, &pos), PARSE_TOO_MANY);
}
