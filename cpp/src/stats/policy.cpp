// memcomp stats: report policies (SPEC 0.6).
#include "memcomp/stats/policy.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "memcomp/core/bits.hpp"
#include "memcomp/core/error.hpp"

namespace memcomp {
namespace {

[[noreturn]] void bad(std::string_view spec, const std::string& why) {
  throw invalid_argument("bad policy '" + std::string(spec) + "': " + why +
                         "; use none, cap, threshold(f), bytes, segments(s), mag(M[,u_min]), "
                         "pow2[(fmax)], or fallback+rounding such as cap+mag(32)");
}

// Splits "name(a,b)" into name and numeric args.
void split_call(std::string_view full, std::string_view term, std::string& name, std::vector<double>& args) {
  const auto open = term.find('(');
  name = std::string(term.substr(0, open));
  if (open == std::string_view::npos) return;
  if (term.back() != ')') bad(full, "missing ')'");
  std::string inner(term.substr(open + 1, term.size() - open - 2));
  std::stringstream ss(inner);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    char* end = nullptr;
    const double v = std::strtod(tok.c_str(), &end);
    if (end == tok.c_str() || *end != '\0') bad(full, "'" + tok + "' is not a number");
    args.push_back(v);
  }
}

unsigned whole(std::string_view full, double v, double lo, double hi, const char* what) {
  if (!(v >= lo && v <= hi) || v != static_cast<double>(static_cast<long long>(v)))
    bad(full, std::string(what) + " must be a whole number in [" + std::to_string(static_cast<long long>(lo)) + ", " +
                  std::to_string(static_cast<long long>(hi)) + "]");
  return static_cast<unsigned>(v);
}

}  // namespace

Policy Policy::parse(std::string_view spec) {
  std::string s;
  for (char c : spec)
    if (!std::isspace(static_cast<unsigned char>(c)))
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  Policy p;
  if (s.empty()) bad(spec, "empty");
  bool have_fallback = false, have_rounding = false;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t plus = s.find('+', start);
    const std::string term = s.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
    start = plus == std::string::npos ? s.size() + 1 : plus + 1;
    std::string name;
    std::vector<double> a;
    if (term.empty()) bad(spec, "empty term");
    split_call(spec, term, name, a);
    auto nargs = [&](std::size_t lo, std::size_t hi) {
      if (a.size() < lo || a.size() > hi)
        bad(spec, name + " takes " + std::to_string(lo) + "-" + std::to_string(hi) + " arguments");
    };
    if (name == "none") {
      nargs(0, 0);
    } else if (name == "cap" || name == "threshold") {
      if (have_fallback) bad(spec, "more than one fallback");
      have_fallback = true;
      if (name == "cap") {
        nargs(0, 0);
        p.fallback = Fallback::cap;
      } else {
        nargs(1, 1);
        if (!(a[0] > 0.0 && a[0] <= 1.0)) bad(spec, "threshold fraction must be in (0, 1]");
        p.fallback = Fallback::threshold;
        p.threshold = a[0];
      }
    } else if (name == "bytes" || name == "segments" || name == "mag" || name == "pow2") {
      if (have_rounding) bad(spec, "more than one rounding");
      have_rounding = true;
      if (name == "bytes") {
        nargs(0, 0);
        p.rounding = Rounding::bytes;
      } else if (name == "segments") {
        nargs(1, 1);
        p.rounding = Rounding::segments;
        p.segment_bytes = whole(spec, a[0], 1, 4096, "segment size");
      } else if (name == "mag") {
        nargs(1, 2);
        p.rounding = Rounding::mag;
        p.mag_bytes = whole(spec, a[0], 1, 4096, "MAG");
        if (a.size() == 2) p.u_min = whole(spec, a[1], 0, 1, "u_min");
      } else {
        nargs(0, 1);
        p.rounding = Rounding::pow2;
        if (!a.empty()) p.fmax = whole(spec, a[0], 1, 1024, "fmax");
      }
    } else {
      bad(spec, "unknown term '" + name + "'");
    }
  }
  if (have_fallback && have_rounding) {
    // The fallback must come first, as it is applied first.
    const auto f = s.find(p.fallback == Fallback::cap ? "cap" : "threshold");
    if (f != 0) bad(spec, "write the fallback before the rounding");
  }
  return p;
}

std::string Policy::str() const {
  std::ostringstream o;
  if (fallback == Fallback::cap) o << "cap";
  if (fallback == Fallback::threshold) o << "threshold(" << threshold << ")";
  if (fallback != Fallback::none && rounding != Rounding::none) o << "+";
  switch (rounding) {
    case Rounding::none: break;
    case Rounding::bytes: o << "bytes"; break;
    case Rounding::segments: o << "segments(" << segment_bytes << ")"; break;
    case Rounding::mag:
      o << "mag(" << mag_bytes;
      if (u_min != 1) o << "," << u_min;
      o << ")";
      break;
    case Rounding::pow2: o << "pow2(" << fmax << ")"; break;
  }
  const std::string s = o.str();
  return s.empty() ? "none" : s;
}

std::uint64_t pow2_factor(std::uint64_t bits, std::size_t block_bytes, unsigned fmax) {
  const std::uint64_t full = 8 * std::uint64_t{block_bytes};
  if (bits == 0) return fmax;
  if (bits > full) return 1;
  const std::uint64_t q = full / bits;
  std::uint64_t f = 1;
  while (f < q) f <<= 1;
  return std::min<std::uint64_t>(f, fmax);
}

std::uint64_t Policy::charge(std::uint64_t bits, std::size_t block_bytes) const {
  const std::uint64_t full = 8 * std::uint64_t{block_bytes};
  switch (fallback) {
    case Fallback::none: break;
    case Fallback::cap:
      if (bits >= full) bits = full;
      break;
    case Fallback::threshold:
      if (static_cast<double>(bits) > threshold * static_cast<double>(full)) bits = full;
      break;
  }
  switch (rounding) {
    case Rounding::none: return bits;
    case Rounding::bytes: return 8 * ceil_div(bits, 8);
    case Rounding::segments: return 8 * std::uint64_t{segment_bytes} * ceil_div(bits, 8 * std::uint64_t{segment_bytes});
    case Rounding::mag: {
      const std::uint64_t bursts = std::max<std::uint64_t>(u_min, ceil_div(bits, 8 * std::uint64_t{mag_bytes}));
      return 8 * std::min<std::uint64_t>(block_bytes, mag_bytes * bursts);
    }
    case Rounding::pow2: return full / pow2_factor(bits, block_bytes, fmax);
  }
  return bits;
}

void charge_all(const Policy& policy, const std::uint32_t* bits, std::size_t n, std::size_t block_bytes,
                std::uint64_t* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = policy.charge(bits[i], block_bytes);
}

}  // namespace memcomp
