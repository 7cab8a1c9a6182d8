// Per-line sizes of gem5's own cache compressors (src/mem/cache/compressors, built unmodified
// against the stand-in headers next to this file).
//
//   gem5_lines COMPRESSOR LINE_BYTES IN OUT [fvc options]
//
// COMPRESSOR: bdi (Compressors.py BDI: the Multi of Zero, RepeatedQwords and the six
// BaseXDeltaY, each with size_threshold_percentage=99, encoding_in_tags=True), cpack, fpc
// (zero_run_bits=3), fvc (FrequentValuesCompressor). Every compressor has the Compressors.py
// defaults (size_threshold_percentage=50 at the top level, dictionary_size = line size).
// IN: raw lines, LINE_BYTES each (a trailing partial line is ignored), little-endian words as on
// x86. OUT: one uint32 per line, the size in bits that Base::compress reports (after the
// size-threshold fallback to LINE_BYTES * 8).
//
// fvc options (defaults are Compressors.py's):
//   --samples N      num_samples, in 32-bit chunks (100000)
//   --code-length L  max_code_length (18; 0 = no Huffman, fixed log2(vft_entries)-bit codes)
//   --stream         as a cache fills lines: compress each line, then sample it while sampling
//                    (the lines compressed while sampling are stored raw); without it the first
//                    lines are sampled until num_samples is reached and then every line,
//                    sampled ones included, is compressed with the finished table
//   --threshold P    size_threshold_percentage of the top-level compressor (50), any compressor
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mem/cache/compressors/base_delta.hh"
#include "mem/cache/compressors/cpack.hh"
#include "mem/cache/compressors/fpc.hh"
#include "mem/cache/compressors/frequent_values.hh"
#include "mem/cache/compressors/multi.hh"
#include "mem/cache/compressors/repeated_qwords.hh"
#include "mem/cache/compressors/zero.hh"
#include "mem/cache/replacement_policies/lfu_rp.hh"
#include "mem/cache/tags/indexing_policies/set_associative.hh"
#include "params/Base16Delta8.hh"
#include "params/Base32Delta16.hh"
#include "params/Base32Delta8.hh"
#include "params/Base64Delta16.hh"
#include "params/Base64Delta32.hh"
#include "params/Base64Delta8.hh"
#include "params/CPack.hh"
#include "params/FPC.hh"
#include "params/FrequentValuesCompressor.hh"
#include "params/LFURP.hh"
#include "params/MultiCompressor.hh"
#include "params/RepeatedQwordsCompressor.hh"
#include "params/SetAssociative.hh"
#include "params/ZeroCompressor.hh"

using namespace gem5;

namespace {

// Compressors.py: the BaseXDeltaY, Zero and RepeatedQwords classes set chunk_size_bits and
// 1-cycle latencies (chunks per cycle = 8 * block_size / chunk_size_bits, no extra latency).
template <class P>
P bdi_member(int blk, unsigned chunk_bits) {
    P p;
    p.block_size = blk;
    p.dictionary_size = blk;
    p.chunk_size_bits = chunk_bits;
    p.size_threshold_percentage = 99;
    p.comp_chunks_per_cycle = 8 * blk / chunk_bits;
    p.comp_extra_latency = Cycles(0);
    p.decomp_chunks_per_cycle = 8 * blk / chunk_bits;
    p.decomp_extra_latency = Cycles(0);
    return p;
}

// The FrequentValues class is private apart from probeNotify; Base::compress is public.
class FvcHarness {
  public:
    SetAssociativeParams ip;
    LFURPParams rp;
    std::unique_ptr<SetAssociative> indexing;
    std::unique_ptr<replacement_policy::LFU> repl;
    std::unique_ptr<compression::FrequentValues> fvc;
    FvcHarness(FrequentValuesCompressorParams p) {
        ip.size = p.vft_entries;  // SetAssociative(entry_size=1, assoc=vft_assoc, size=vft_entries)
        ip.entry_size = 1;
        ip.assoc = p.vft_assoc;
        indexing = std::make_unique<SetAssociative>(ip);
        repl = std::make_unique<replacement_policy::LFU>(rp);
        p.vft_indexing_policy = indexing.get();
        p.vft_replacement_policy = repl.get();
        fvc = std::make_unique<compression::FrequentValues>(p);
    }
    void sample(const uint64_t *line, int blk) {
        CacheDataUpdateProbeArg arg;
        arg.newData.assign(line, line + blk / 8);
        fvc->probeNotify(arg);
    }
};

}  // namespace

int main(int argc, char **argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: %s bdi|cpack|fpc|fvc LINE_BYTES IN OUT [options]\n", argv[0]);
        return 2;
    }
    const std::string which = argv[1];
    const int blk = std::atoi(argv[2]);
    unsigned long samples = 100000, code_length = 18, threshold = 50;
    bool stream = false;
    for (int i = 5; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "--samples" && i + 1 < argc) samples = std::strtoul(argv[++i], nullptr, 10);
        else if (a == "--code-length" && i + 1 < argc) code_length = std::strtoul(argv[++i], nullptr, 10);
        else if (a == "--threshold" && i + 1 < argc) threshold = std::strtoul(argv[++i], nullptr, 10);
        else if (a == "--stream") stream = true;
        else { std::fprintf(stderr, "unknown option %s\n", a.c_str()); return 2; }
    }
    if (blk != 32 && blk != 64 && blk != 128) { std::fprintf(stderr, "LINE_BYTES: 32, 64 or 128\n"); return 2; }

    FILE *in = std::fopen(argv[3], "rb");
    if (!in) { std::perror(argv[3]); return 1; }
    std::vector<uint64_t> data;
    {
        std::vector<uint64_t> buf(1 << 20);
        size_t got;
        while ((got = std::fread(buf.data(), 8, buf.size(), in)) > 0) data.insert(data.end(), buf.begin(), buf.begin() + got);
        std::fclose(in);
    }
    const size_t words = blk / 8, n = data.size() / words;
    std::vector<uint32_t> out(n);

    std::unique_ptr<compression::Base> comp;
    std::unique_ptr<FvcHarness> fvh;
    if (which == "bdi") {
        MultiCompressorParams p;
        p.block_size = blk;
        p.size_threshold_percentage = threshold;
        p.comp_chunks_per_cycle = 0;  // Multi: the sub-compressors' latencies
        p.decomp_chunks_per_cycle = 0;
        p.comp_extra_latency = Cycles(1);
        p.decomp_extra_latency = Cycles(0);  // BDI
        p.encoding_in_tags = true;           // BDI
        static auto z = bdi_member<ZeroCompressorParams>(blk, 64);
        static auto r = bdi_member<RepeatedQwordsCompressorParams>(blk, 64);
        static auto a = bdi_member<Base64Delta8Params>(blk, 64);
        static auto b = bdi_member<Base64Delta16Params>(blk, 64);
        static auto c = bdi_member<Base64Delta32Params>(blk, 64);
        static auto d = bdi_member<Base32Delta8Params>(blk, 32);
        static auto e = bdi_member<Base32Delta16Params>(blk, 32);
        static auto f = bdi_member<Base16Delta8Params>(blk, 16);
        p.compressors = {new compression::Zero(z), new compression::RepeatedQwords(r),
                         new compression::Base64Delta8(a), new compression::Base64Delta16(b),
                         new compression::Base64Delta32(c), new compression::Base32Delta8(d),
                         new compression::Base32Delta16(e), new compression::Base16Delta8(f)};
        comp = std::make_unique<compression::Multi>(p);
    } else if (which == "cpack") {
        CPackParams p;
        p.block_size = blk;
        p.dictionary_size = blk;
        p.size_threshold_percentage = threshold;
        p.comp_chunks_per_cycle = 2;
        p.comp_extra_latency = Cycles(5);
        p.decomp_chunks_per_cycle = 2;
        p.decomp_extra_latency = Cycles(1);
        comp = std::make_unique<compression::CPack>(p);
    } else if (which == "fpc") {
        FPCParams p;
        p.block_size = blk;
        p.dictionary_size = 1;
        p.size_threshold_percentage = threshold;
        p.comp_chunks_per_cycle = 8;
        p.comp_extra_latency = Cycles(1);
        p.decomp_chunks_per_cycle = 4;
        p.decomp_extra_latency = Cycles(1);
        p.zero_run_bits = 3;
        comp = std::make_unique<compression::FPC>(p);
    } else if (which == "fvc") {
        FrequentValuesCompressorParams p;
        p.block_size = blk;
        p.size_threshold_percentage = threshold;
        p.max_code_length = code_length;
        p.num_samples = samples;
        fvh = std::make_unique<FvcHarness>(p);
    } else {
        std::fprintf(stderr, "unknown compressor %s\n", which.c_str());
        return 2;
    }

    Cycles cl, dl;
    if (fvh) {
        compression::Base &b = *fvh->fvc;
        if (stream) {
            // Allocation compresses the line, then the fill's data update is sampled.
            for (size_t i = 0; i < n; i++) {
                out[i] = b.compress(&data[i * words], cl, dl)->getSizeBits();
                fvh->sample(&data[i * words], blk);
            }
        } else {
            // Sample until the sampling phase ends (takenSamples >= num_samples is checked after
            // every line), or every line if there are fewer samples.
            const size_t per_line = 8 * blk / 32;
            const size_t lines = std::min(n, (samples + per_line - 1) / per_line);
            if (lines * per_line < samples) {
                std::fprintf(stderr, "fvc: %zu lines give fewer than %lu samples: pass --samples %zu\n",
                             n, samples, lines * per_line);
                return 2;
            }
            for (size_t i = 0; i < lines; i++) fvh->sample(&data[i * words], blk);
            for (size_t i = 0; i < n; i++) out[i] = b.compress(&data[i * words], cl, dl)->getSizeBits();
        }
    } else {
        for (size_t i = 0; i < n; i++) out[i] = comp->compress(&data[i * words], cl, dl)->getSizeBits();
    }

    FILE *o = std::fopen(argv[4], "wb");
    if (!o) { std::perror(argv[4]); return 1; }
    std::fwrite(out.data(), 4, out.size(), o);
    std::fclose(o);
    return 0;
}
