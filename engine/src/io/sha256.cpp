// SPDX-License-Identifier: MIT
// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the manifest's content hashes.
#include "io/sha256.hpp"

#include <array>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define ZF_SHA_NI 1
#endif

#include "zeroforge/output.hpp"

namespace zf {
namespace {

constexpr std::array<std::uint32_t, 64> kRound = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(std::array<std::uint32_t, 8>& h, const unsigned char* block) {
  std::uint32_t w[64];
  for (std::size_t i = 0; i < 16; ++i) {
    w[i] = (std::uint32_t{block[4 * i]} << 24) | (std::uint32_t{block[4 * i + 1]} << 16) |
           (std::uint32_t{block[4 * i + 2]} << 8) | std::uint32_t{block[4 * i + 3]};
  }
  for (int i = 16; i < 64; ++i) {
    std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    std::uint32_t t1 =
        k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
    std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += k;
}

using State = std::array<std::uint32_t, 8>;
using Compress = void (*)(State& h, const unsigned char* blocks, std::size_t count);

void compress_portable(State& h, const unsigned char* blocks, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) compress(h, blocks + 64 * i);
}

#ifdef ZF_SHA_NI
// The same compression with the x86 SHA extensions (about 15x fewer instructions). The
// state is kept as the ABEF/CDGH register pairs the instructions work on; each group of
// four rounds takes its message words from the previous sixteen (msg1, add, msg2).
__attribute__((target("sha,sse4.1,ssse3"))) void compress_sha_ni(State& h,
                                                                 const unsigned char* blocks,
                                                                 std::size_t count) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&h[0]));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&h[4]));
  __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
  for (std::size_t b = 0; b < count; ++b) {
    const unsigned char* block = blocks + 64 * b;
    __m128i abef_saved = abef, cdgh_saved = cdgh;
    __m128i words[4];  // message words 4(i-3)..4i+3, rolling
    for (int i = 0; i < 16; ++i) {
      __m128i& w = words[i % 4];
      if (i < 4) {
        w = _mm_shuffle_epi8(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + std::ptrdiff_t{16} * i)),
            byte_swap);
      } else {
        __m128i t = _mm_sha256msg1_epu32(words[i % 4], words[(i + 1) % 4]);
        t = _mm_add_epi32(t, _mm_alignr_epi8(words[(i + 3) % 4], words[(i + 2) % 4], 4));
        w = _mm_sha256msg2_epu32(t, words[(i + 3) % 4]);
      }
      __m128i k = _mm_add_epi32(w, _mm_loadu_si128(reinterpret_cast<const __m128i*>(
                                       &kRound[4 * static_cast<std::size_t>(i)])));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(k, 0x0E));
    }
    abef = _mm_add_epi32(abef, abef_saved);
    cdgh = _mm_add_epi32(cdgh, cdgh_saved);
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&h[0]), _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&h[4]), _mm_alignr_epi8(dchg, feba, 8));
}
#endif

std::string digest_hex(std::string_view data, Compress compress_blocks) {
  State h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
             0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t full = data.size() / 64;
  compress_blocks(h, bytes, full);
  // The tail, a 0x80 byte, zeros, and the bit length in the last 8 bytes (one or two blocks).
  unsigned char tail[128] = {};
  std::size_t rest = data.size() - 64 * full;
  if (rest > 0) std::memcpy(tail, bytes + 64 * full, rest);
  tail[rest] = 0x80;
  std::size_t tail_size = rest < 56 ? 64 : 128;
  std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_size - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  compress_blocks(h, tail, tail_size / 64);
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (std::uint32_t word : h) {
    for (int shift = 28; shift >= 0; shift -= 4) out += digits[(word >> shift) & 0xf];
  }
  return out;
}

#ifdef ZF_SHA_NI
// CPUID rather than __builtin_cpu_supports("sha"), which clang before 16 does not know.
bool cpu_has_sha_ni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || (ecx & bit_SSE4_1) == 0) return false;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return (ebx & (1u << 29)) != 0;  // CPUID.(EAX=7,ECX=0):EBX.SHA[bit 29]
}
#endif

Compress best_compress() {
#ifdef ZF_SHA_NI
  if (cpu_has_sha_ni()) return compress_sha_ni;
#endif
  return compress_portable;
}

}  // namespace

namespace detail {

std::string sha256_hex_portable(std::string_view data) {
  return digest_hex(data, compress_portable);
}

bool sha256_has_hardware() { return best_compress() != compress_portable; }

}  // namespace detail

std::string sha256_hex(std::string_view data) {
  static const Compress compress_blocks = best_compress();
  return digest_hex(data, compress_blocks);
}

}  // namespace zf
