// memcomp core: a small, strict JSON value for model files (SPEC 0.7: fitted models are
// immutable, versioned JSON). RFC 8259, no extensions: objects keep the key order of the text,
// \uXXXX escapes (surrogate pairs included) decode to UTF-8, numbers are doubles with an exact
// int64 view. Malformed input throws json_error (a memcomp::invalid_argument) with the byte offset.
#pragma once
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "memcomp/core/error.hpp"

namespace memcomp {

struct json_error : invalid_argument {
  using invalid_argument::invalid_argument;
};

class Json {
 public:
  enum class Type { null, boolean, number, string, array, object };
  using Items = std::vector<std::pair<std::string, Json>>;

  bool is_null() const noexcept { return type_ == Type::null; }
  bool is_object() const noexcept { return type_ == Type::object; }
  bool is_array() const noexcept { return type_ == Type::array; }
  bool is_string() const noexcept { return type_ == Type::string; }

  bool as_bool() const { return want(Type::boolean, "a boolean").bool_; }
  double as_double() const { return want(Type::number, "a number").num_; }
  const std::string& as_string() const { return want(Type::string, "a string").str_; }
  /// The exact value; throws unless the number is integral and fits in int64.
  std::int64_t as_int() const {
    want(Type::number, "a number");
    if (is_int_) return int_;
    if (num_ != std::floor(num_) || !(std::fabs(num_) < 9223372036854775808.0))
      throw json_error("json: " + str_ + " is not an int64");
    return static_cast<std::int64_t>(num_);
  }
  std::size_t size() const {
    return type_ == Type::array ? arr_.size() : want(Type::object, "an array or object").obj_.size();
  }
  const std::vector<Json>& elements() const { return want(Type::array, "an array").arr_; }
  const Json& at(std::size_t i) const {
    if (i >= elements().size()) throw json_error("json: index " + std::to_string(i) + " out of range");
    return arr_[i];
  }
  const Items& items() const { return want(Type::object, "an object").obj_; }
  const Json* find(const std::string& key) const {
    for (const auto& kv : items())
      if (kv.first == key) return &kv.second;
    return nullptr;
  }
  const Json& operator[](const std::string& key) const {
    if (const Json* v = find(key)) return *v;
    throw json_error("json: missing key \"" + key + "\"");
  }

  // Builders, for writing models.
  static Json boolean(bool b) {
    Json v;
    v.type_ = Type::boolean;
    v.bool_ = b;
    return v;
  }
  static Json integer(std::int64_t x) {
    Json v;
    v.type_ = Type::number;
    v.is_int_ = true;
    v.int_ = x;
    v.num_ = static_cast<double>(x);
    v.str_ = std::to_string(x);
    return v;
  }
  static Json number(double x) {
    Json v;
    v.type_ = Type::number;
    v.num_ = x;
    char buf[32];
    v.str_.assign(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
    return v;
  }
  static Json string(std::string s) {
    Json v;
    v.type_ = Type::string;
    v.str_ = std::move(s);
    return v;
  }
  static Json array(std::vector<Json> a = {}) {
    Json v;
    v.type_ = Type::array;
    v.arr_ = std::move(a);
    return v;
  }
  static Json object(Items o = {}) {
    Json v;
    v.type_ = Type::object;
    v.obj_ = std::move(o);
    return v;
  }
  Json& push(Json x) {
    want(Type::array, "an array");
    arr_.push_back(std::move(x));
    return *this;
  }
  Json& set(std::string key, Json x) {
    want(Type::object, "an object");
    for (auto& kv : obj_)
      if (kv.first == key) return kv.second = std::move(x), *this;
    obj_.emplace_back(std::move(key), std::move(x));
    return *this;
  }

  /// Compact text (no spaces), object keys in their stored order; parse(dump()) == *this.
  std::string dump() const {
    std::string out;
    write(out);
    return out;
  }

  static Json parse(const std::string& text) {
    Parser p{text, 0};
    Json v = p.value(0);
    p.ws();
    if (p.i != text.size()) p.fail("trailing characters");
    return v;
  }

 private:
  void write(std::string& out) const {
    switch (type_) {
      case Type::null: out += "null"; break;
      case Type::boolean: out += bool_ ? "true" : "false"; break;
      case Type::number: out += str_; break;
      case Type::string: quote(out, str_); break;
      case Type::array:
        out += '[';
        for (std::size_t k = 0; k < arr_.size(); ++k) {
          if (k) out += ',';
          arr_[k].write(out);
        }
        out += ']';
        break;
      case Type::object:
        out += '{';
        for (std::size_t k = 0; k < obj_.size(); ++k) {
          if (k) out += ',';
          quote(out, obj_[k].first);
          out += ':';
          obj_[k].second.write(out);
        }
        out += '}';
        break;
    }
  }
  static void quote(std::string& out, const std::string& s) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += '"';
    for (const char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (u < 0x20) {
        out += "\\u00";
        out += kHex[u >> 4];
        out += kHex[u & 15];
      } else {
        out += c;
      }
    }
    out += '"';
  }

  const Json& want(Type t, const char* what) const {
    if (type_ != t) throw json_error(std::string("json: value is not ") + what);
    return *this;
  }

  struct Parser {
    const std::string& s;
    std::size_t i;

    [[noreturn]] void fail(const std::string& why) const {
      throw json_error("json: " + why + " at byte " + std::to_string(i));
    }
    char peek() const { return i < s.size() ? s[i] : '\0'; }
    void ws() {
      while (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r') ++i;
    }
    bool eat(char c) { return peek() == c ? (++i, true) : false; }
    void need(char c) {
      if (!eat(c)) fail(std::string("expected '") + c + "'");
    }
    bool digits() {
      const std::size_t start = i;
      while (peek() >= '0' && peek() <= '9') ++i;
      return i > start;
    }

    Json value(int depth) {
      if (depth > 200) fail("nesting too deep");
      ws();
      Json v;
      if (eat('{')) {
        v.type_ = Type::object;
        ws();
        if (eat('}')) return v;
        do {
          ws();
          if (peek() != '"') fail("expected a string key");
          std::string key = string();
          if (v.find(key)) fail("duplicate key \"" + key + "\"");
          ws();
          need(':');
          v.obj_.emplace_back(std::move(key), value(depth + 1));
          ws();
        } while (eat(','));
        need('}');
      } else if (eat('[')) {
        v.type_ = Type::array;
        ws();
        if (eat(']')) return v;
        do {
          v.arr_.push_back(value(depth + 1));
          ws();
        } while (eat(','));
        need(']');
      } else if (peek() == '"') {
        v.type_ = Type::string;
        v.str_ = string();
      } else if (peek() == '-' || (peek() >= '0' && peek() <= '9')) {
        number(v);
      } else {
        for (const char* word : {"true", "false", "null"})
          if (s.compare(i, std::char_traits<char>::length(word), word) == 0) {
            i += std::char_traits<char>::length(word);
            v.type_ = word[0] == 'n' ? Type::null : Type::boolean;
            v.bool_ = word[0] == 't';
            return v;
          }
        fail(i < s.size() ? "unexpected character" : "unexpected end of input");
      }
      return v;
    }

    void number(Json& v) {
      const std::size_t start = i;
      eat('-');
      if (!eat('0') && !digits()) fail("bad number");
      const bool integral = peek() != '.' && peek() != 'e' && peek() != 'E';
      if (eat('.') && !digits()) fail("bad number fraction");
      if (eat('e') || eat('E')) {
        if (!eat('+')) eat('-');
        if (!digits()) fail("bad number exponent");
      }
      v.type_ = Type::number;
      v.str_ = s.substr(start, i - start);  // the literal, for messages
      const char* b = s.data() + start;
      if (std::from_chars(b, s.data() + i, v.num_).ec != std::errc()) fail("number out of range");
      v.is_int_ = integral && std::from_chars(b, s.data() + i, v.int_).ec == std::errc();
    }

    unsigned hex4() {
      unsigned u = 0;
      for (int k = 0; k < 4; ++k, ++i) {
        const char h = peek();
        const int d = h >= '0' && h <= '9'   ? h - '0'
                      : h >= 'a' && h <= 'f' ? h - 'a' + 10
                      : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                             : -1;
        if (d < 0) fail("bad \\u escape");
        u = u * 16 + static_cast<unsigned>(d);
      }
      return u;
    }

    std::string string() {
      std::string out;
      auto put = [&](unsigned x) { out.push_back(static_cast<char>(static_cast<unsigned char>(x))); };
      need('"');
      for (;;) {
        if (i >= s.size()) fail("unterminated string");
        const char c = s[i];
        if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
        ++i;
        if (c == '"') return out;
        if (c != '\\') {
          out.push_back(c);
          continue;
        }
        static constexpr char kFrom[] = "\"\\/bfnrt", kTo[] = "\"\\/\b\f\n\r\t";
        const char e = peek();
        if (e != 'u') {
          const char* at = e ? std::char_traits<char>::find(kFrom, 8, e) : nullptr;
          if (!at) fail("bad escape");
          out.push_back(kTo[at - kFrom]);
          ++i;
          continue;
        }
        ++i;
        unsigned cp = hex4();
        if (cp >= 0xDC00 && cp <= 0xDFFF) fail("unpaired low surrogate");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (!eat('\\') || !eat('u')) fail("unpaired high surrogate");
          const unsigned lo = hex4();
          if (lo < 0xDC00 || lo > 0xDFFF) fail("bad low surrogate");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        // UTF-8: 1 byte below 0x80, else a lead byte and 1-3 continuation bytes
        const int extra = cp < 0x80 ? 0 : cp < 0x800 ? 1 : cp < 0x10000 ? 2 : 3;
        put(extra == 0 ? cp : ((0xFF00u >> (extra + 1)) & 0xF0u) | (cp >> (6 * extra)));
        for (int k = extra - 1; k >= 0; --k) put(0x80u | ((cp >> (6 * k)) & 0x3Fu));
      }
    }
  };

  Type type_ = Type::null;
  bool bool_ = false, is_int_ = false;
  double num_ = 0.0;
  std::int64_t int_ = 0;
  std::string str_;  // a string's value, or a number's literal
  std::vector<Json> arr_;
  Items obj_;
};

/// Reads and parses a whole file; errors name the path and the byte offset.
inline Json parse_json_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw json_error("json: cannot open " + path);
  std::ostringstream text;
  text << f.rdbuf();
  try {
    return Json::parse(text.str());
  } catch (const json_error& e) {
    throw json_error(path + ": " + e.what());
  }
}

}  // namespace memcomp
