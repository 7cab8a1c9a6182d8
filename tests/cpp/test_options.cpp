// Option tables (core/options.hpp): one declaration per codec gives parsing, options() and
// option_space. Checked on a small table of its own and on every registered preset.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>

#include "memcomp/codecs/registry.hpp"
#include "memcomp/core/options.hpp"

namespace memcomp {
namespace {

enum class Shape { round, square };

struct Toy {
  bool flag;
  unsigned width;
  std::int64_t step;
  double share;
  Shape shape;
  std::string name;
  std::string note;
  unsigned depth;
};

const OptionTable<Toy>& toy_table() {
  static const OptionTable<Toy> t{
      option_bool("flag", &Toy::flag, true, "a flag"),
      option_int("width", &Toy::width, 8, 1, 16, "a width"),
      option_int("step", &Toy::step, 2, {1, 2, 4}, "a step"),
      option_float("share", &Toy::share, 0.5, 0.0, 1.0, "a share"),
      option_choice("shape", &Toy::shape, "round", {{"round", Shape::round}, {"square", Shape::square}}, "a shape"),
      option_choice("name", &Toy::name, "a", {"a", "b"}, "a name"),
      option_string("note", &Toy::note, "", "a note"),
      with_default<Toy>(option_int("depth", &Toy::depth, 16, 1, 64, "twice the width unless given"),
                        [](const Toy& s) { return OptionValue{std::int64_t{2 * s.width}}; })};
  return t;
}

TEST(OptionTable, DefaultsAndValues) {
  const Toy d = toy_table().parse({}, "toy");
  EXPECT_TRUE(d.flag);
  EXPECT_EQ(d.width, 8u);
  EXPECT_EQ(d.step, 2);
  EXPECT_EQ(d.share, 0.5);
  EXPECT_EQ(d.shape, Shape::round);
  EXPECT_EQ(d.name, "a");
  EXPECT_EQ(d.note, "");
  EXPECT_EQ(d.depth, 16u);  // 2 x the default width
  const Toy s = toy_table().parse({{"flag", false},
                                   {"width", std::int64_t{3}},
                                   {"step", std::int64_t{4}},
                                   {"share", std::int64_t{1}},  // an int where a number goes
                                   {"shape", std::string("square")},
                                   {"name", std::string("b")},
                                   {"note", std::string("x")}},
                                  "toy");
  EXPECT_FALSE(s.flag);
  EXPECT_EQ(s.width, 3u);
  EXPECT_EQ(s.step, 4);
  EXPECT_EQ(s.share, 1.0);
  EXPECT_EQ(s.shape, Shape::square);
  EXPECT_EQ(s.name, "b");
  EXPECT_EQ(s.note, "x");
  EXPECT_EQ(s.depth, 6u);  // follows the width given
  EXPECT_EQ(toy_table().parse({{"width", std::int64_t{3}}, {"depth", std::int64_t{5}}}, "toy").depth, 5u);
}

TEST(OptionTable, WriteGivesEveryOptionBack) {
  const Options o{{"flag", false},
                  {"width", std::int64_t{3}},
                  {"step", std::int64_t{4}},
                  {"share", 0.25},
                  {"shape", std::string("square")},
                  {"name", std::string("b")},
                  {"note", std::string("x")},
                  {"depth", std::int64_t{7}}};
  EXPECT_EQ(toy_table().write(toy_table().parse(o, "toy")), o);
}

std::string message_of(const Options& o) {
  try {
    toy_table().parse(o, "toy");
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(OptionTable, RefusesWithTheOptionsName) {
  EXPECT_EQ(message_of({{"width", std::string("3")}}), "toy: option 'width' must be an integer, got '3'");
  EXPECT_EQ(message_of({{"width", std::int64_t{17}}}), "toy: option 'width' must be in [1, 16], got 17");
  EXPECT_EQ(message_of({{"step", std::int64_t{3}}}), "toy: option 'step' must be one of 1, 2, 4, got 3");
  EXPECT_EQ(message_of({{"share", 1.5}}), "toy: option 'share' must be in [0, 1], got 1.5");
  EXPECT_EQ(message_of({{"share", true}}), "toy: option 'share' must be a number, got True");
  EXPECT_EQ(message_of({{"flag", std::int64_t{1}}}), "toy: option 'flag' must be a bool, got 1");
  EXPECT_EQ(message_of({{"shape", std::string("oval")}}),
            "toy: option 'shape' must be one of 'round', 'square', got 'oval'");
  EXPECT_EQ(message_of({{"note", 2.0}}), "toy: option 'note' must be a string, got 2");
  EXPECT_EQ(message_of({{"colour", std::string("red")}, {"size", std::int64_t{1}}}),
            "toy: unknown option(s) 'colour', 'size'; valid options: depth, flag, name, note, shape, share, step, "
            "width");
  EXPECT_THROW(toy_table().parse({{"width", 1.0}}, "toy"), type_error);  // TypeError in Python
  EXPECT_THROW(toy_table().parse({{"width", std::int64_t{0}}}, "toy"), invalid_argument);
}

// The domains as one line each: kind, values, default.
std::string describe(const OptionDomain& d) {
  std::string out = d.kind;
  const auto whole = [](double x) { return std::to_string(static_cast<std::int64_t>(x)); };
  if (d.kind == "int" && d.choices.empty()) out += "[" + whole(d.lo) + "," + whole(d.hi) + "]";
  if (d.kind == "float") out += "[" + to_string(d.lo) + "," + to_string(d.hi) + "]";
  if (!d.choices.empty()) {
    out += "{";
    for (std::size_t i = 0; i < d.choices.size(); ++i) out += (i ? "," : "") + d.choices[i];
    out += "}";
  }
  return out + "=" + to_string(d.dflt);
}

TEST(OptionTable, SpaceListsEveryDomainWithHelp) {
  const OptionSpace s = toy_table().space();
  ASSERT_EQ(s.size(), 8u);
  EXPECT_EQ(describe(s.at("flag")), "bool=True");
  EXPECT_EQ(describe(s.at("width")), "int[1,16]=8");
  EXPECT_EQ(describe(s.at("step")), "int{1,2,4}=2");
  EXPECT_EQ(s.at("step").lo, 1);
  EXPECT_EQ(s.at("step").hi, 4);
  EXPECT_EQ(describe(s.at("share")), "float[0,1]=0.5");
  EXPECT_EQ(describe(s.at("shape")), "choice{round,square}='round'");
  EXPECT_EQ(describe(s.at("name")), "choice{a,b}='a'");
  EXPECT_EQ(describe(s.at("note")), "string=''");
  EXPECT_EQ(describe(s.at("depth")), "int[1,64]=16");
  EXPECT_EQ(s.at("shape").help, "a shape");
}

// Every family's options as they were read before the tables (names, domains, defaults: the
// codecs' constructors and SPEC 1.x), pinned so a default or an entry cannot change unnoticed.
const std::map<std::string, std::map<std::string, std::string>>& pinned() {
  static const std::map<std::string, std::string> endian{{"endian", "choice{little,big}='little'"}};
  const auto with = [](std::map<std::string, std::string> a, const std::map<std::string, std::string>& b) {
    a.insert(b.begin(), b.end());
    return a;
  };
  static const std::map<std::string, std::string> e2mc =
      with(endian, {{"symbol_bits", "int{4,8,16,32}=16"},
                    {"mfv", "int[1,1048576]=1024"},
                    {"max_len", "int[-1,32]=-1"},
                    {"limit", "choice{floor,package_merge,drop}='floor'"},
                    {"per_position", "bool=True"},
                    {"pdw", "int[1,8]=4"},
                    {"mag", "int[1,4096]=32"},
                    {"raw", "bool=True"},
                    {"miss", "choice{escape,flag}='escape'"},
                    {"tree", "choice{spec,heap}='spec'"},
                    {"sample", "choice{all,cal22}='all'"},
                    {"model", "string=''"}});
  static const std::map<std::string, std::map<std::string, std::string>> all{
      {"zca", {}},
      {"zrep", {{"w", "int{1,2,4,8}=8"}}},
      {"bdi", with(endian, {{"immediates", "choice{sign,zero}='sign'"},
                            {"delta_fit", "choice{signed,symmetric,magnitude}='signed'"},
                            {"zero_bits", "int[0,16]=8"},
                            {"repeat4", "bool=False"},
                            {"mask", "bool=True"},
                            {"bases", "int[1,2]=1"},
                            {"encoding", "choice{tag,inband,none}='tag'"},
                            {"winner", "choice{min_bits,pow2}='min_bits'"},
                            {"member_threshold", "float[0,1]=0"},
                            {"fmax", "int[1,64]=4"},
                            {"order", "choice{encoding,kim,cmu}='encoding'"}})},
      {"bdi.cal22", {}},
      {"bdi.nap64", {}},
      {"fpc", with(endian, {{"zero_run", "choice{bounded,unbounded}='bounded'"},
                            {"size_model", "choice{bits,cmu}='bits'"},
                            {"layout", "choice{interleaved,mc}='interleaved'"},
                            {"halfwords", "choice{signed,gem5}='signed'"}})},
      {"cpack", with(endian, {{"push", "choice{unmatched,literal,nonnarrow,nonzero}='unmatched'"},
                              {"dictionary", "choice{fifo,deque,fill,block}='fifo'"},
                              {"init", "choice{empty,zeros}='empty'"},
                              {"persistent", "bool=False"},
                              {"layout", "choice{interleaved,mc}='interleaved'"}})},
      {"bpc", with(endian, {{"code_map", "choice{ebpc,kim}='ebpc'"},
                            {"delta_bits", "int[32,33]=33"},
                            {"base", "choice{coded,fixed7}='coded'"},
                            {"alt_mode", "choice{none,rows,planes}='none'"},
                            {"precedence", "choice{kim,liu}='kim'"},
                            {"words", "choice{signed,unsigned}='signed'"},
                            {"fields", "choice{width,fixed32}='width'"}})},
      {"lzss",
       with(endian, {{"token_bytes", "int{1,4}=1"}, {"min_match", "int[1,16]=3"}, {"length_bits", "int[1,8]=4"}})},
      {"fib", endian},
      {"fvc", with(endian, {{"entries", "int[1,1048576]=7"},
                            {"code_bits", "int[0,24]=0"},
                            {"table", "choice{top,gem5}='top'"},
                            {"ways", "int[1,256]=16"},
                            {"samples", "int[1,1099511627776]=100000"},
                            {"model", "string=''"}})},
      {"e2mc", e2mc},
      {"sc2", e2mc},
      {"slc", with(e2mc, {{"variant", "choice{simp,pred,opt}='opt'"},
                          {"threshold_bytes", "int[0,256]=16"},
                          {"compact_lossless", "bool=False"},
                          {"predict", "choice{word,symbol}='word'"},
                          {"budget", "choice{gain,stream,codes}='gain'"}})},
      {"mpc", {{"select", "choice{rtl,min_bits}='rtl'"}, {"model", "string=''"}}},
      {"bestof",
       {{"members", "string='bdi.paper,fpc.paper'"},
        {"key", "choice{bits,mag,pow2}='bits'"},
        {"selector", "choice{inband,tag}='inband'"},
        {"mag", "int[1,4096]=32"},
        {"fmax", "int[1,1024]=4"}}},
  };
  return all;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const Preset& p : presets()) out.push_back(p.name);
  return out;
}

class PresetOptions : public ::testing::TestWithParam<std::string> {};

TEST_P(PresetOptions, SpaceIsThePinnedOneWithHelp) {
  const Preset& p = find_preset(GetParam());
  const auto& all = pinned();
  const auto it = all.count(p.name) ? all.find(p.name) : all.find(p.family);
  ASSERT_NE(it, all.end()) << p.name;
  std::map<std::string, std::string> got;
  for (const auto& [key, d] : option_space(p.name)) {
    got[key] = describe(d);
    EXPECT_FALSE(d.help.empty()) << p.name << " " << key;
    EXPECT_EQ(d.help.find('\n'), std::string::npos) << p.name << " " << key;
  }
  EXPECT_EQ(got, it->second) << p.name;
}

/// A value of `d` drawn at random (strings: none drawn, models and member lists have their own tests).
OptionValue draw(const OptionDomain& d, std::mt19937_64& rng) {
  if (d.kind == "bool") return rng() % 2 == 1;
  if (!d.choices.empty()) {
    const std::string& c = d.choices[rng() % d.choices.size()];
    if (d.kind == "int") return static_cast<std::int64_t>(std::stoll(c));
    return c;
  }
  if (d.kind == "float") return d.lo + (d.hi - d.lo) * std::uniform_real_distribution<double>(0, 1)(rng);
  const auto lo = static_cast<std::int64_t>(d.lo), hi = static_cast<std::int64_t>(d.hi);
  const std::int64_t near = std::min(hi, lo + 40);  // mostly small values: wide ranges still build
  return rng() % 4 == 0 ? std::uniform_int_distribution<std::int64_t>(lo, hi)(rng)
                        : std::uniform_int_distribution<std::int64_t>(lo, near)(rng);
}

std::set<std::string> keys_of(const Options& o) {
  std::set<std::string> k;
  for (const auto& kv : o) k.insert(kv.first);
  return k;
}
std::set<std::string> keys_of(const OptionSpace& s) {
  std::set<std::string> k;
  for (const auto& kv : s) k.insert(kv.first);
  return k;
}

// parse(write(s)) == s: options() of a codec built from options() gives the same options, for
// the preset's settings and for random ones drawn from its space; the space lists exactly the
// keys options() writes, and a value given is the value written (a default may be resolved:
// fvc's code_bits 0 becomes the width it stands for).
TEST_P(PresetOptions, OptionsRoundTripThroughTheTable) {
  const std::string name = GetParam();
  const OptionSpace space = option_space(name);
  const Options base = make_codec(name)->options();
  EXPECT_EQ(keys_of(base), keys_of(space)) << name;
  EXPECT_EQ(make_codec(name, base)->options(), base) << name;
  std::mt19937_64 rng(std::hash<std::string>{}(name));
  int built = 0;
  for (int trial = 0; trial < 60; ++trial) {
    Options given;
    for (const auto& [key, d] : space)
      if (d.kind != "string" && rng() % 2) given[key] = draw(d, rng);
    std::unique_ptr<Codec> c;
    try {
      c = make_codec(name, given);
    } catch (const invalid_argument&) {
      continue;  // a combination the codec refuses, with a message
    }
    ++built;
    const Options w = c->options();
    EXPECT_EQ(keys_of(w), keys_of(space)) << name;
    EXPECT_EQ(make_codec(name, w)->options(), w) << name;
    for (const auto& [key, v] : given) {
      if (v != space.at(key).dflt) {
        EXPECT_EQ(w.at(key), v) << name << " " << key;
      }
    }
  }
  EXPECT_GT(built, 0) << name;
}

INSTANTIATE_TEST_SUITE_P(Registry, PresetOptions, ::testing::ValuesIn(preset_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string s = i.param;
                           for (char& ch : s)
                             if (ch == '.') ch = '_';
                           return s;
                         });

}  // namespace
}  // namespace memcomp
