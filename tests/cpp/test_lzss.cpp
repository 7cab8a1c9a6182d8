// placeholder for the lzss tests
#include <gtest/gtest.h>
