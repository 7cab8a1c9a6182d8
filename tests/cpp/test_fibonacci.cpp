// placeholder for the fib tests
#include <gtest/gtest.h>
