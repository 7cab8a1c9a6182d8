// C-Pack (SPEC 1.4, W6): codes, indices and stream fields of every preset, push policies,
// dictionary kinds, init=zeros, skku's dictionary across blocks, and corrupt streams.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memcomp/codecs/registry.hpp"
#include "test_util.hpp"

using namespace memcomp;

namespace {

using test::encode_one;
using test::Stream;

constexpr int N = -1;  // no index field

std::vector<std::uint8_t> words(std::initializer_list<std::uint32_t> ws, std::size_t B, Endian e = Endian::little) {
  std::vector<std::uint8_t> b(B, 0);
  std::size_t i = 0;
  for (auto w : ws) store<std::uint32_t>(b.data() + 4 * i++, w, e);
  return b;
}

struct Tok {
  std::string code;
  int index;
  std::uint32_t low;
};

/// Reads the codes back with an independent parser of the SPEC 1.4 stream.
std::vector<Tok> parse(const Stream& s, std::size_t n_words) {
  BitReader r(s.buf.data(), s.bits);
  std::vector<Tok> out;
  for (std::size_t i = 0; i < n_words; ++i) {
    Tok t{"", N, 0};
    switch (r.read(2)) {
      case 0: t.code = "zzzz"; break;
      case 1:
        t.code = "xxxx";
        t.low = static_cast<std::uint32_t>(r.read(32));
        break;
      case 2:
        t.code = "mmmm";
        t.index = static_cast<int>(r.read(4));
        break;
      default:
        switch (r.read(2)) {
          case 0:
            t.code = "mmxx";
            t.index = static_cast<int>(r.read(4));
            t.low = static_cast<std::uint32_t>(r.read(16));
            break;
          case 1:
            t.code = "zzzx";
            t.low = static_cast<std::uint32_t>(r.read(8));
            break;
          case 2:
            t.code = "mmmx";
            t.index = static_cast<int>(r.read(4));
            t.low = static_cast<std::uint32_t>(r.read(8));
            break;
          default: ADD_FAILURE() << "code 1111"; return out;
        }
    }
    out.push_back(t);
  }
  EXPECT_EQ(r.remaining(), 0u);
  return out;
}

std::vector<std::string> codes_of(const std::vector<Tok>& ts) {
  std::vector<std::string> c;
  for (const auto& t : ts) c.push_back(t.code);
  return c;
}
std::vector<int> indices_of(const std::vector<Tok>& ts) {
  std::vector<int> c;
  for (const auto& t : ts) c.push_back(t.index);
  return c;
}

/// encode_batch -> decode_batch of a batch gives it back in measure_batch's bits.
void expect_batch_round_trip(const Codec& c, const std::vector<std::uint8_t>& data, std::size_t B) {
  const std::size_t n = data.size() / B;
  const EncodedBlocks enc = c.encode_batch({data.data(), n, B}, 1);
  std::vector<std::uint8_t> out(data.size(), 0xA5);
  c.decode_batch(
      {enc.data.data(), enc.data.size(), enc.bit_offsets.data(), enc.bit_lengths.data(), enc.tags.data(), n, B},
      out.data(), 1);
  EXPECT_EQ(out, data);
}

/// Every size column of a batch, one after the other (modes last, as 32-bit values).
std::vector<std::uint32_t> batch_sizes(const Codec& c, const BlockView& v, int threads, Session* s = nullptr) {
  const std::size_t n = v.n_blocks;
  std::vector<std::uint32_t> u(5 * n);
  std::vector<std::int16_t> mode(n);
  c.measure_batch(v, {u.data(), u.data() + n, u.data() + 2 * n, u.data() + 3 * n, u.data() + 4 * n, mode.data()},
                  threads, s);
  u.insert(u.end(), mode.begin(), mode.end());
  return u;
}

std::vector<std::uint32_t> batch_bits(const Codec& c, const std::vector<std::uint8_t>& data, std::size_t B,
                                      Session* s = nullptr) {
  const std::size_t n = data.size() / B;
  std::vector<std::uint32_t> u = batch_sizes(c, {data.data(), n, B}, 1, s);
  u.resize(n);
  return u;
}

const std::vector<std::uint8_t> kW6 =
    words({0, 0x12345678, 0x12345678, 0x123456AB, 0x1234ABCD, 0xFF, 0xDEADBEEF, 0x1234ABCD}, 32);

struct W6Want {
  const char* preset;
  std::vector<std::string> codes;
  std::vector<int> indices;
  std::uint32_t payload, meta;
};

TEST(CPack, W6EveryPreset) {
  const std::vector<std::string> le = {"zzzz", "xxxx", "mmmm", "mmmx", "mmxx", "zzzx", "xxxx", "mmmm"};
  // memory-order bytes: 78 56 34 12 / AB 56 34 12 / CD AB 34 12 share no bits 31..16
  const std::vector<std::string> be = {"zzzz", "xxxx", "mmmm", "xxxx", "xxxx", "xxxx", "xxxx", "mmmm"};
  std::vector<std::string> kim = le;
  kim[7] = "mmxx";
  const std::vector<W6Want> want = {
      {"cpack.paper", le, {N, N, 0, 0, 0, N, N, 2}, 112, 22},
      {"cpack.gem5", le, {N, N, 0, 0, 0, N, N, 3}, 112, 22},
      {"cpack.kim", kim, {N, N, 0, 0, 0, N, N, 0}, 128, 24},
      {"cpack.schreiber", be, {N, N, 0, N, N, N, N, 2}, 168, 16},
      {"cpack.skku", be, {N, N, 15, N, N, N, N, 13}, 168, 16},
  };
  for (const auto& w : want) {
    SCOPED_TRACE(w.preset);
    const auto c = make_codec(w.preset);
    const SizeBreakdown s = c->measure(kW6.data(), 32);
    EXPECT_EQ(s.payload, w.payload);
    EXPECT_EQ(s.meta, w.meta);
    EXPECT_EQ(s.header, 0u);
    EXPECT_EQ(s.tag, 0u);
    const Stream st = encode_one(*make_codec(w.preset), kW6);  // gem5 too: its indices fit at 32 B
    EXPECT_EQ(st.bits, s.inband());
    const auto toks = parse(st, 8);
    EXPECT_EQ(codes_of(toks), w.codes);
    EXPECT_EQ(indices_of(toks), w.indices);
    if (c->exact()) expect_batch_round_trip(*c, kW6, 32);
  }
  // SPEC W6 totals
  EXPECT_EQ(make_codec("cpack.paper")->measure(kW6.data(), 32).inband(), 134u);
  EXPECT_EQ(make_codec("cpack.gem5")->measure(kW6.data(), 32).inband(), 134u);
  EXPECT_EQ(make_codec("cpack.kim")->measure(kW6.data(), 32).inband(), 152u);
}

TEST(CPack, StreamFieldsOfEveryCode) {
  const auto blk = words({0x11223344, 0x11223344, 0x112233AA, 0x1122BBCC, 0xDD, 0, 0xCAFEF00D, 0x1122BBCC}, 32);
  const auto toks = parse(encode_one(*make_codec("cpack.paper"), blk), 8);
  ASSERT_EQ(toks.size(), 8u);
  EXPECT_EQ(toks[0].code, "xxxx");
  EXPECT_EQ(toks[0].low, 0x11223344u);  // the 32-bit word, MSB first
  EXPECT_EQ(toks[1].code, "mmmm");
  EXPECT_EQ(toks[1].index, 0);
  EXPECT_EQ(toks[2].code, "mmmx");
  EXPECT_EQ(toks[2].index, 0);
  EXPECT_EQ(toks[2].low, 0xAAu);
  EXPECT_EQ(toks[3].code, "mmxx");
  EXPECT_EQ(toks[3].index, 0);  // slots 0 and 1 both share 1122: the lowest wins
  EXPECT_EQ(toks[3].low, 0xBBCCu);
  EXPECT_EQ(toks[4].code, "zzzx");
  EXPECT_EQ(toks[4].low, 0xDDu);
  EXPECT_EQ(toks[5].code, "zzzz");
  EXPECT_EQ(toks[6].low, 0xCAFEF00Du);
  EXPECT_EQ(toks[7].code, "mmmm");
  EXPECT_EQ(toks[7].index, 2);
  // The first two words' exact bits: 01 + 11223344, then 10 + 0000.
  const Stream st = encode_one(*make_codec("cpack.paper"), blk);
  EXPECT_EQ(st.buf[0], 0x44);  // 01 000100
  EXPECT_EQ(st.buf[1], 0x48);  // 01 001000
  EXPECT_EQ(st.buf[2], 0x8C);  // 10 001100
  EXPECT_EQ(st.buf[3], 0xD1);  // 11 010001
  EXPECT_EQ(st.buf[4], 0x20);  // 00 (end of the word), 10 0000 (mmmm of slot 0)
}

TEST(CPack, BigEndianViewUsesMemoryOrderBytes) {
  // The same 32-bit values written big-endian: the memory-order view sees them, the LE view not.
  const auto be =
      words({0x11223344, 0x11223344, 0x112233AA, 0x1122BBCC, 0xDD, 0, 0xCAFEF00D, 0x1122BBCC}, 32, Endian::big);
  const auto s = parse(encode_one(*make_codec("cpack.schreiber"), be), 8);
  EXPECT_EQ(codes_of(s), (std::vector<std::string>{"xxxx", "mmmm", "mmmx", "mmxx", "zzzx", "zzzz", "xxxx", "mmxx"}));
  EXPECT_EQ(s[0].low, 0x11223344u);
  EXPECT_EQ(s[3].low, 0xBBCCu);  // memory bytes 2 and 3
  EXPECT_EQ(make_codec("cpack.schreiber")->measure(be.data(), 32).inband(), 152u);
  const auto p = parse(encode_one(*make_codec("cpack.paper"), be), 8);
  EXPECT_EQ(codes_of(p), (std::vector<std::string>{"xxxx", "mmmm", "xxxx", "xxxx", "xxxx", "zzzz", "xxxx", "mmmm"}));
  EXPECT_EQ(p[0].low, 0x44332211u);
  EXPECT_EQ(make_codec("cpack.paper")->measure(be.data(), 32).inband(), 184u);
}

TEST(CPack, PushPolicies) {
  const auto blk = words({0x12345678, 0x1234AAAA, 0x1234AAAA, 0xEE, 0xEE, 0, 0, 0}, 32);
  auto bits = [&](const char* push) {
    return make_codec("cpack", {{"push", std::string(push)}})->measure(blk.data(), 32).inband();
  };
  EXPECT_EQ(bits("unmatched"), 94u);  // 1234AAAA enters after its mmxx: the repeat is mmmm
  EXPECT_EQ(bits("literal"), 112u);   // it does not: mmxx twice
  EXPECT_EQ(bits("nonnarrow"), 94u);  // EE (zzzx) stays out
  EXPECT_EQ(bits("nonzero"), 88u);    // EE enters: its repeat is mmmm (6 < 12)
  const auto t = parse(encode_one(*make_codec("cpack", {{"push", std::string("nonzero")}}), blk), 8);
  EXPECT_EQ(t[4].code, "mmmm");
  EXPECT_EQ(t[4].index, 3);  // 12345678, 1234AAAA, its mmmm repeat, EE

  // Pushed repeats evict: X, A x 16, X in a 16-slot FIFO (128 B).
  std::vector<std::uint8_t> ev(128, 0);
  store<std::uint32_t>(ev.data(), 0xCAFE1234u, Endian::little);
  for (std::size_t i = 1; i <= 16; ++i) store<std::uint32_t>(ev.data() + 4 * i, 0x12345678u, Endian::little);
  store<std::uint32_t>(ev.data() + 4 * 17, 0xCAFE1234u, Endian::little);
  EXPECT_EQ(make_codec("cpack.paper")->measure(ev.data(), 128).inband(), 34u + 34u + 15u * 6u + 6u + 14u * 2u);
  EXPECT_EQ(make_codec("cpack", {{"push", std::string("nonnarrow")}})->measure(ev.data(), 128).inband(),
            34u + 34u + 15u * 6u + 34u + 14u * 2u);  // X was overwritten by the 15th repeat of A
  EXPECT_EQ(make_codec("cpack.gem5")->measure(ev.data(), 128).inband(), 192u);  // 32 slots: no replacement
}

TEST(CPack, ZeroEntriesOfKim) {
  const auto blk = words({0x0000ABCD, 0x0000ABCD, 0x12345678, 0x0000EF01, 0, 0, 0, 0}, 32);
  const auto t = parse(encode_one(*make_codec("cpack.kim"), blk), 8);
  EXPECT_EQ(codes_of(t), (std::vector<std::string>{"mmxx", "mmxx", "xxxx", "mmxx", "zzzz", "zzzz", "zzzz", "zzzz"}));
  EXPECT_EQ(indices_of(t), (std::vector<int>{0, 0, N, 1, N, N, N, N}));  // 12345678 overwrote slot 0
  EXPECT_EQ(t[0].low, 0xABCDu);
  EXPECT_EQ(make_codec("cpack.kim")->measure(blk.data(), 32).inband(), 114u);
  EXPECT_EQ(make_codec("cpack.paper")->measure(blk.data(), 32).inband(), 106u);
  expect_batch_round_trip(*make_codec("cpack.kim"), blk, 32);
}

TEST(CPack, FillDictionaryStopsAtSixteen) {
  std::vector<std::uint32_t> ws;
  for (std::uint32_t k = 1; k <= 17; ++k) ws.push_back(k << 24 | 0x5A1122u);
  ws.push_back(ws.back());
  std::vector<std::uint8_t> blk(128, 0);
  for (std::size_t i = 0; i < ws.size(); ++i) store<std::uint32_t>(blk.data() + 4 * i, ws[i], Endian::big);
  EXPECT_EQ(make_codec("cpack.schreiber")->measure(blk.data(), 128).inband(), 18u * 34u + 14u * 2u);
  EXPECT_EQ(make_codec("cpack.schreiber", {{"dictionary", std::string("fifo")}})->measure(blk.data(), 128).inband(),
            17u * 34u + 6u + 14u * 2u);
  EXPECT_EQ(make_codec("cpack.skku")->measure(blk.data(), 128).inband(), 17u * 34u + 6u + 14u * 2u);
  const auto t = parse(encode_one(*make_codec("cpack.skku"), blk), 32);
  EXPECT_EQ(t[17].code, "mmmm");
  EXPECT_EQ(t[17].index, 15);  // the newest of the deque
  expect_batch_round_trip(*make_codec("cpack.schreiber"), blk, 128);
}

TEST(CPack, Gem5BlockDictionaryIsAccountingOnly) {
  std::vector<std::uint8_t> blk(128, 0);
  for (std::uint32_t k = 1; k <= 20; ++k)
    store<std::uint32_t>(blk.data() + 4 * (k - 1), k << 24 | 0xABCDu, Endian::little);
  store<std::uint32_t>(blk.data() + 4 * 20, 18u << 24 | 0xABCDu, Endian::little);  // slot 17
  store<std::uint32_t>(blk.data() + 4 * 21, 3u << 24 | 0xABCDu, Endian::little);   // slot 2
  const auto c = make_codec("cpack.gem5");
  EXPECT_FALSE(c->exact());
  EXPECT_EQ(c->measure(blk.data(), 128).inband(), 20u * 34u + 6u + 6u + 10u * 2u);  // slot 17 charged 4 bits
  std::vector<std::uint8_t> buf(1024);
  BitWriter w(buf.data(), 8 * buf.size());
  EXPECT_THROW(c->encode(blk.data(), 128, w), memcomp::invalid_argument);  // index 17 has no 4-bit field
  EXPECT_THROW(c->encode_batch({kW6.data(), 1, 32}, 1), memcomp::invalid_argument);
  // the paper's FIFO wrapped: word 18 is in slot 1, word 3 was evicted
  EXPECT_EQ(make_codec("cpack.paper")->measure(blk.data(), 128).inband(), 20u * 34u + 6u + 34u + 10u * 2u);
}

TEST(CPack, SkkuKeepsOneDictionaryAcrossBlocks) {
  std::vector<std::uint8_t> x(32), z(32);
  for (std::uint8_t k = 0; k < 8; ++k) {
    const std::uint8_t xb[4] = {static_cast<std::uint8_t>(0x10 + k), 0x20, 0x30, 0x40};
    const std::uint8_t zb[4] = {static_cast<std::uint8_t>(0x80 + k), 0x21, 0x31, 0x41};
    std::copy(xb, xb + 4, x.begin() + 4 * k);
    std::copy(zb, zb + 4, z.begin() + 4 * k);
  }
  const auto c = make_codec("cpack.skku");
  EXPECT_TRUE(c->stateful());
  std::vector<std::uint8_t> xx = x;
  xx.insert(xx.end(), x.begin(), x.end());
  // The same block twice in one batch: the second copy finds every word.
  EXPECT_EQ(batch_bits(*c, xx, 32), (std::vector<std::uint32_t>{272, 48}));
  EXPECT_EQ(batch_bits(*c, xx, 32), (std::vector<std::uint32_t>{272, 48}));  // each from the initial state
  Session stream(*c);  // a session carries the dictionary from batch to batch
  EXPECT_EQ(batch_bits(*c, x, 32, &stream), (std::vector<std::uint32_t>{272}));
  EXPECT_EQ(batch_bits(*c, x, 32, &stream), (std::vector<std::uint32_t>{48}));
  EXPECT_EQ(batch_bits(*c, x, 32), (std::vector<std::uint32_t>{272}));  // the codec itself holds none
  EXPECT_EQ(batch_bits(*make_codec("cpack.schreiber"), xx, 32), (std::vector<std::uint32_t>{272, 272}));
  // A direct measure() call is a one-block stream from the initial dictionary.
  const auto d = make_codec("cpack.skku");
  EXPECT_EQ(d->measure(x.data(), 32).inband(), 272u);
  EXPECT_EQ(d->measure(x.data(), 32).inband(), 272u);

  // Deque indices are ages: X X Z X.
  std::vector<std::uint8_t> seq = xx;
  seq.insert(seq.end(), z.begin(), z.end());
  seq.insert(seq.end(), x.begin(), x.end());
  EXPECT_EQ(batch_bits(*c, seq, 32), (std::vector<std::uint32_t>{272, 48, 272, 48}));
  const EncodedBlocks enc = c->encode_batch({seq.data(), 4, 32}, 1);
  for (std::size_t b : {std::size_t{1}, std::size_t{3}}) {
    Stream st;
    st.buf.assign(enc.data.begin() + static_cast<std::ptrdiff_t>(enc.bit_offsets[b] / 8), enc.data.end());
    st.buf.resize(st.buf.size() + 8);
    st.bits = enc.bit_lengths[b];
    const auto t = parse(st, 8);
    for (int k = 0; k < 8; ++k) {
      EXPECT_EQ(t[static_cast<std::size_t>(k)].code, "mmmm");
      EXPECT_EQ(t[static_cast<std::size_t>(k)].index, b == 1 ? 8 + k : k);  // 8 zeros left, then none
    }
  }
  expect_batch_round_trip(*c, seq, 32);
}

/// A batch's streams as one string: bytes, offsets, lengths, tags and entry state.
std::string streams_of(const EncodedBlocks& e) {
  auto bytes = [](const auto* p, std::size_t n) {
    return std::string(reinterpret_cast<const char*>(p), n * sizeof *p);
  };
  return bytes(e.data.data(), e.data.size()) + "|" + bytes(e.bit_offsets.data(), e.bit_offsets.size()) + "|" +
         bytes(e.bit_lengths.data(), e.bit_lengths.size()) + "|" + bytes(e.tags.data(), e.tags.size()) + "|" +
         bytes(e.entry_state.data(), e.entry_state.size());
}

/// decode_batch's blocks on `threads` threads (from the recorded entry state, or the session's),
/// or "error: " and its message.
std::string decoded(const Codec& c, const EncodedBlocks& e, int threads, bool entry, Session* s = nullptr) {
  EncodedView v{e.data.data(), e.data.size(), e.bit_offsets.data(), e.bit_lengths.data(),
                e.tags.data(), e.tags.size(), e.block_bytes};
  if (entry) {
    v.entry_state = e.entry_state.data();
    v.entry_state_bytes = e.entry_state.size();
  }
  std::string out(v.n_blocks * v.block_bytes, '\0');
  try {
    c.decode_batch(v, reinterpret_cast<std::uint8_t*>(out.data()), threads, s);
  } catch (const corrupt_stream& err) {
    return std::string("error: ") + err.what();
  }
  return out;
}

TEST(CPack, StatefulBatchesOnThreadsEqualOneThread) {
  // A stateful batch split across threads guesses the state each range starts in; a wrong guess
  // (here: literals, then a long run of zero blocks that pushes nothing, so the dictionary still
  // holds old literals the guess cannot know) makes the range run again. Sizes, streams, decoded
  // blocks, the first bad block of a corrupt stream, the state left for a resumed batch and the
  // entry state an encode records equal one thread's either way.
  constexpr std::size_t B = 32, n = 3 * 65536 + 5;
  std::vector<std::uint8_t> real = test::adversarial_blocks(B, 20000, 9), x(n * B);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = real[i % real.size()];
  std::vector<std::uint8_t> lz = x;  // literals, zeros over the range starts, words from few literals after
  std::uint32_t r = 12345;
  for (std::size_t i = 0; i < n * B; ++i) {
    r = r * 1103515245u + 12345u;
    lz[i] = i < n * B / 4       ? static_cast<std::uint8_t>(r >> 24)
            : i < 3 * n * B / 4 ? 0
                                : static_cast<std::uint8_t>(i % 7);
  }
  Options fifo, fill;
  fifo["push"] = std::string("literal");
  fifo["persistent"] = true;
  fill = fifo;
  fill["dictionary"] = std::string("fill");
  Options deque = fifo;
  deque["dictionary"] = std::string("deque");
  const std::vector<std::pair<std::string, Options>> codecs{
      {"cpack.skku", {}}, {"cpack.paper", fifo}, {"cpack.paper", fill}, {"cpack.paper", deque}};
  for (const auto& [preset, opts] : codecs)
    for (const auto* data : {&x, &lz})
      for (int threads : {3}) {  // three ranges
        const auto one = make_codec(preset, opts), many = make_codec(preset, opts);
        const BlockView v{data->data(), n, B};
        const std::string what = preset + " " + std::to_string(opts.size()) + " options, " +
                                 (data == &x ? "realistic" : "literals then zeros") + ", threads " +
                                 std::to_string(threads);
        const std::string blocks(reinterpret_cast<const char*>(data->data()), n * B);
        Session s1(*one), sm(*many);            // one stream each, from batch to batch
        for (int pass = 0; pass < 2; ++pass) {  // every batch continues its session's stream
          EXPECT_EQ(batch_sizes(*many, v, threads, &sm), batch_sizes(*one, v, 1, &s1)) << what;
          EXPECT_EQ(sm.save(), s1.save()) << what;
          const EncodedBlocks e1 = one->encode_batch(v, 1, &s1), e = many->encode_batch(v, threads, &sm);
          EXPECT_EQ(streams_of(e), streams_of(e1)) << what;
          EXPECT_EQ(sm.save(), s1.save()) << what;
          EXPECT_EQ(decoded(*many, e, threads, true, &sm), blocks) << what;
          EXPECT_EQ(sm.save(), s1.save()) << what;  // decoding leaves the state encoding left
          // from the session's state (here: the state the encode left, so not this stream's)
          EXPECT_EQ(decoded(*many, e, threads, false, &sm), decoded(*one, e, 1, false, &s1)) << what;
          EXPECT_EQ(sm.save(), s1.save()) << what;
        }
        // A block that cannot decode (undefined code 1111 first) in the last range is named.
        EncodedBlocks bad = one->encode_batch(v, 1);
        const std::size_t at = n - 7;
        bad.data[bad.bit_offsets[at] / 8] = 0xF0;
        bad.data[bad.bit_offsets[at] / 8 + 1] = 0x00;
        const std::string err = decoded(*one, bad, 1, true);
        EXPECT_NE(err.find("block " + std::to_string(at)), std::string::npos) << what << ": " << err.substr(0, 80);
        EXPECT_EQ(decoded(*many, bad, threads, true), err) << what;
      }
}

TEST(CPack, OptionsAndFlags) {
  for (const char* p : {"cpack.paper", "cpack.gem5", "cpack.kim", "cpack.schreiber", "cpack.skku"}) {
    const auto c = make_codec(p);
    EXPECT_EQ(c->stateful(), std::string(p) == "cpack.skku") << p;
    EXPECT_EQ(c->exact(), std::string(p) != "cpack.gem5") << p;
    EXPECT_EQ(c->max_compressed_bits(256), 34u * 64u);
    EXPECT_EQ(c->options().size(), 6u);  // endian, push, dictionary, init, persistent, layout
  }
  EXPECT_EQ(make_codec("cpack")->preset(), "cpack.paper");
  EXPECT_THROW(make_codec("cpack", {{"init", std::string("zeros")}, {"dictionary", std::string("fill")}}),
               memcomp::invalid_argument);
  EXPECT_THROW(make_codec("cpack", {{"persistent", true}, {"dictionary", std::string("block")}}),
               memcomp::invalid_argument);
  EXPECT_THROW(make_codec("cpack", {{"push", std::string("all")}}), memcomp::invalid_argument);
}

// ---- corrupt streams -----------------------------------------------------------------------------

/// Decodes a '0'/'1' string as one block with a fresh codec.
void decode_bits(const char* preset, const std::string& bits, std::size_t B) {
  std::vector<std::uint8_t> buf(bits.size() / 8 + 1, 0);
  for (std::size_t i = 0; i < bits.size(); ++i)
    if (bits[i] == '1') buf[i / 8] = static_cast<std::uint8_t>(buf[i / 8] | (0x80u >> (i % 8)));
  std::vector<std::uint8_t> out(B);
  BitReader r(buf.data(), bits.size());
  make_codec(preset)->decode(r, 0, out.data(), B);
}

TEST(CPack, DecoderRejectsEmptySlotsAndUndefinedCode) {
  const std::string lit = "01" + std::string(32, '0');
  EXPECT_THROW(decode_bits("cpack.paper",
                           "100000"
                           "00"
                           "00"
                           "00",
                           16),
               corrupt_stream);  // slot 0 of nothing
  EXPECT_THROW(decode_bits("cpack.paper",
                           lit + "100001"
                                 "00"
                                 "00",
                           16),
               corrupt_stream);  // slot 1 of one
  EXPECT_NO_THROW(decode_bits("cpack.paper",
                              lit + "100000"
                                    "00"
                                    "00",
                              16));
  EXPECT_THROW(decode_bits("cpack.schreiber",
                           lit +
                               "1100"
                               "0001" +
                               std::string(16, '0') +
                               "00"
                               "00",
                           16),
               corrupt_stream);
  EXPECT_THROW(decode_bits("cpack.paper",
                           "1111"
                           "00"
                           "00"
                           "00",
                           16),
               corrupt_stream);
  // init=zeros: all 16 slots are entries
  EXPECT_NO_THROW(decode_bits("cpack.kim",
                              "101111"
                              "00"
                              "00"
                              "00",
                              16));
  EXPECT_NO_THROW(decode_bits("cpack.skku",
                              "101111"
                              "00"
                              "00"
                              "00",
                              16));
}

TEST(CPack, DecoderRejectsTruncatedStreams) {
  for (const char* p : {"cpack.paper", "cpack.kim", "cpack.schreiber", "cpack.skku"}) {
    const Stream st = encode_one(*make_codec(p), kW6);
    for (std::size_t cut = 0; cut < st.bits; ++cut) {
      std::vector<std::uint8_t> out(32);
      BitReader r(st.buf.data(), cut);
      EXPECT_THROW(make_codec(p)->decode(r, 0, out.data(), 32), corrupt_stream) << p << " cut " << cut;
    }
    std::vector<std::uint8_t> out(32);
    BitReader r(st.buf.data(), st.bits);
    make_codec(p)->decode(r, 0, out.data(), 32);
    EXPECT_EQ(out, kW6) << p;
  }
}

TEST(CPack, LaneKernelsEqualScalar) {
  for (const char* endian : {"little", "big"}) {
    const auto c = make_codec("cpack.paper", {{"endian", std::string(endian)}});
    test::check_lane_encoder(*c);
    test::check_lane_decoder(*c);
  }
  for (const char* push : {"literal", "nonnarrow", "nonzero"})
    test::check_lane_encoder(*make_codec("cpack.paper", {{"push", std::string(push)}}));
  for (const char* dict : {"fifo", "deque"})
    for (const char* push : {"unmatched", "literal", "nonnarrow", "nonzero"})
      test::check_lane_decoder(*make_codec(
          "cpack.paper",
          {{"dictionary", std::string(dict)}, {"init", std::string("zeros")}, {"push", std::string(push)}}));
  test::check_lane_decoder(
      *make_codec("cpack.paper", {{"dictionary", std::string("fill")}, {"push", std::string("nonzero")}}));
  test::check_lane_decoder(*make_codec("cpack.paper", {{"dictionary", std::string("deque")}}));
  // The one-block encoder of the 16-slot dictionaries: fresh or persistent, with or without zero
  // entries, either layout (each batch of check_lane_encoder carries the state block to block).
  test::check_lane_encoder(*make_codec("cpack.skku"));
  for (const char* dict : {"fifo", "deque", "fill"})
    for (const char* init : {"empty", "zeros"})
      for (bool persistent : {false, true})
        for (const char* push : {"unmatched", "literal"})
          for (const char* layout : {"interleaved", "mc"}) {
            if (std::string(dict) == "fill" && std::string(init) == "zeros") continue;  // refused
            Options o{{"dictionary", std::string(dict)}, {"init", std::string(init)},
                      {"persistent", persistent},        {"push", std::string(push)},
                      {"layout", std::string(layout)},   {"endian", std::string("big")}};
            test::check_lane_encoder(*make_codec("cpack.paper", o));
            // the one-block decoder's unchecked reads (interleaved, room in the buffer)
            for (std::size_t B : {32u, 256u})
              test::check_unchecked_reads(*make_codec("cpack.paper", o), test::adversarial_blocks(B), B);
          }
  test::check_unchecked_reads(*make_codec("cpack.skku"), test::adversarial_blocks(32), 32);
}

}  // namespace
