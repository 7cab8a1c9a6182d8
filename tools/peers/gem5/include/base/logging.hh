// Stand-in for gem5's base/logging.hh: panic/fatal abort with the message.
#pragma once
#include <cassert>
#include <cstdio>
#include <cstdlib>
#define GEM5H_DIE(kind, ...) (std::fprintf(stderr, "%s: %s:%d\n", kind, __FILE__, __LINE__), std::abort())
#define panic(...) GEM5H_DIE("panic", __VA_ARGS__)
#define fatal(...) GEM5H_DIE("fatal", __VA_ARGS__)
#define panic_if(cond, ...) do { if (cond) GEM5H_DIE("panic", __VA_ARGS__); } while (0)
#define fatal_if(cond, ...) do { if (cond) GEM5H_DIE("fatal", __VA_ARGS__); } while (0)
#define warn(...) do { } while (0)
#define warn_once(...) do { } while (0)
#define inform(...) do { } while (0)
#define chatty_assert(cond, ...) assert(cond)
#define gem5_assert(cond, ...) assert(cond)
