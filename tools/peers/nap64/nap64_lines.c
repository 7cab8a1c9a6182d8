/*
 * Per-line sizes from NAP64's compression plugins (NAP64/Memory-Compression-Measurements-Open,
 * src/compression/{bdi,cpack,bpc}.c), built unmodified by build.sh.
 *
 *   nap64_lines PLUGIN FILE
 *
 * PLUGIN is bdi, cpack or bpc. FILE is read as lines of the plugin's line size (bdi and cpack
 * 64 B, bpc 128 B: the constants in their loops); a trailing partial line is ignored. For each
 * line it prints two numbers in bits: the size the plugin reports by default (the driver's
 * parse_switch on: capped at the line) and with -p (parse_switch off: uncapped).
 *
 * build.sh compiles each plugin with PAGE_SIZE set to its line size, so one call of the
 * plugin's compress function measures exactly one line and returns its size.
 */
#include <plugin_struct.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern struct compression nap64_bdi, nap64_cpack, nap64_bpc;

static uint64_t run(struct compression* c, struct shared* sh, uint8_t* line) {
  uint16_t* report = NULL;
  c->sharedv = sh;
  const uint64_t bits = c->compress(c, line, &report);
  free(report);
  return bits;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s {bdi|cpack|bpc} FILE\n", argv[0]);
    return 2;
  }
  struct compression* c = NULL;
  size_t line = 0;
  if (!strcmp(argv[1], "bdi")) c = &nap64_bdi, line = 64;
  if (!strcmp(argv[1], "cpack")) c = &nap64_cpack, line = 64;
  if (!strcmp(argv[1], "bpc")) c = &nap64_bpc, line = 128;
  if (!c) {
    fprintf(stderr, "%s: unknown plugin %s (bdi, cpack or bpc)\n", argv[0], argv[1]);
    return 2;
  }
  FILE* f = fopen(argv[2], "rb");
  if (!f) {
    perror(argv[2]);
    return 2;
  }
  /* NAP64's defaults (driver.c: validate off, parse_switch on), and -p. */
  struct shared capped = {.validate = 0, .parse_switch = 1, .filename = argv[2], .threads = 1, .header = 0};
  struct shared uncapped = capped;
  uncapped.parse_switch = 0;
  uint8_t buf[128] __attribute__((aligned(16)));
  while (fread(buf, 1, line, f) == line) {
    const uint64_t a = run(c, &capped, buf), b = run(c, &uncapped, buf);
    if (a == ERROR_SIZE || b == ERROR_SIZE) return 1;
    printf("%llu %llu\n", (unsigned long long)a, (unsigned long long)b);
  }
  fclose(f);
  return 0;
}
