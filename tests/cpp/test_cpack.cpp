// placeholder for the cpack tests
#include <gtest/gtest.h>
