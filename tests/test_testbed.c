#include <criterion/criterion.h>
Test(testbed, placeholder) {}
