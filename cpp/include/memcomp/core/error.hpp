// memcomp core: error types. Each maps to one Python exception in the bindings:
// invalid_argument -> ValueError, type_error -> TypeError, corrupt_stream ->
// memcomp.CorruptStreamError (a ValueError).
#pragma once
#include <stdexcept>
#include <string>

namespace memcomp {

/// Bad caller input (sizes, options, shapes). Never used for stream corruption.
struct invalid_argument : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Bad caller input of the wrong type (an option given a str where an int goes). An
/// invalid_argument, so C++ callers catch both alike.
struct type_error : invalid_argument {
  using invalid_argument::invalid_argument;
};

/// A compressed stream that cannot have come from the encoder: truncated, too long, or with a
/// field value the format does not define. Decoders throw it instead of reading out of bounds.
struct corrupt_stream : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace memcomp
