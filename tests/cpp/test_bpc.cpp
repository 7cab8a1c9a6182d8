// placeholder for the bpc tests
#include <gtest/gtest.h>
