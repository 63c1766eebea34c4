// SPDX-License-Identifier: MIT
// deform_fast.cpp — the fast CPU path: same steps as deform.cpp (morph, then skin), restructured for throughput.
//   - Deltas are prepacked target-major and trimmed to their non-zero vertex span (packTargets, src/pack/).
//   - Only active targets (|w| > 0) are visited.
//   - Vertices are processed in blocks small enough that the block's outputs stay in L1/L2 while every active
//     target's deltas stream through once; the inner loop is a contiguous axpy (out[i] += w·d[i]) the compiler
//     vectorizes.
//   - Skinning then runs per vertex on the morphed block, in float (relative to a pivot and an origin), with
//     the blended matrix as four 4-wide columns; normalization runs once per block, vectorized.
#include <algorithm>
#include <cmath>

#include "morphkit/core/deform.h"
#include "morphkit/pack/active_targets.h"

namespace morphkit {

namespace {

// x86-64: an AVX2 + FMA build of run() beside the baseline one, chosen once at load time (GCC/Clang function
// multi-versioning). Measured on MorphSkinBlob52: 0.143 → 0.121 ms per frame (docs/PERFORMANCE.md). Results
// differ from the baseline build by FMA's single rounding only, within the fast path's stated tolerance. GCC only:
// clang 14 emits no definition for a target_clones member function (the fuzz build, clang, failed to link).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define MORPHKIT_FAST_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MORPHKIT_FAST_CLONES
#endif

// Four floats in one SSE/NEON register. A matrix is kept as its columns (x, y, z, translation; lane 3 unused),
// so blending, M·p and M·n are lane-wise multiply-adds with no horizontal sums.
#if defined(__GNUC__) || defined(__clang__)
using Float4 = float __attribute__((vector_size(16)));
#else
struct Float4 {
  float v[4];
  float& operator[](int i) { return v[i]; }
  float operator[](int i) const { return v[i]; }
  friend Float4 operator*(Float4 a, float s) { return {a.v[0] * s, a.v[1] * s, a.v[2] * s, a.v[3] * s}; }
  friend Float4 operator+(Float4 a, Float4 b) {
    return {a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3]};
  }
  Float4& operator+=(Float4 b) { return *this = *this + b; }
};
#endif
inline void prefetch(const void* address) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(address);
#else
  (void)address;
#endif
}

struct Columns {
  Float4 c[4];
};

// Blends the joints of one vertex's `k` influences (K: k known at compile time, 0: not) into `out`; returns the sum
// of the weights. A zero weight is skipped: its joint index was never validated.
template <uint32_t K>
inline float blendJoints(const float* __restrict weights, const uint32_t* __restrict joints, uint32_t k,
                         const Columns* __restrict palette, Columns& out) {
  float sum = 0.0f;
  const uint32_t n = K != 0 ? K : k;
#if defined(__GNUC__) || defined(__clang__)
  // Two columns per 8-wide multiply-add (one AVX instruction in the x86-64-v3 clone; two SSE ones otherwise):
  // lane for lane the same operations as four 4-wide ones, so the same bits.
  using Float8 = float __attribute__((vector_size(32)));
  Float8 c01{}, c23{};
  for (uint32_t i = 0; i < n; ++i) {
    const float w = weights[i];
    uint32_t bits;
    __builtin_memcpy(&bits, &w, 4);
    if ((bits << 1) == 0) continue;  // w == ±0, as an integer test: no unordered-compare branch
    const Columns& j = palette[joints[i]];
    Float8 j01, j23;
    __builtin_memcpy(&j01, &j.c[0], sizeof j01);
    __builtin_memcpy(&j23, &j.c[2], sizeof j23);
    c01 += j01 * w;
    c23 += j23 * w;
    sum += w;
  }
  out.c[0] = __builtin_shufflevector(c01, c01, 0, 1, 2, 3);
  out.c[1] = __builtin_shufflevector(c01, c01, 4, 5, 6, 7);
  out.c[2] = __builtin_shufflevector(c23, c23, 0, 1, 2, 3);
  out.c[3] = __builtin_shufflevector(c23, c23, 4, 5, 6, 7);
#else
  for (Float4& c : out.c) c = Float4{0, 0, 0, 0};
  for (uint32_t i = 0; i < n; ++i) {
    const float w = weights[i];
    if (w == 0.0f) continue;
    const Columns& j = palette[joints[i]];
    for (int c = 0; c < 4; ++c) out.c[c] += j.c[c] * w;
    sum += w;
  }
#endif
  return sum;
}

// out[i*stride + c] += w * d[i*comps + c] for i in [0, count), c < comps. Specialized for the contiguous case.
inline void axpy(float* __restrict out, uint32_t out_stride, const float* __restrict d, uint32_t comps, float w,
                 uint32_t count) {
  if (out_stride == comps) {
    const size_t n = size_t(count) * comps;
    for (size_t i = 0; i < n; ++i) out[i] += w * d[i];
  } else if (out_stride == 4 && comps == 3) {  // tangent xyz into xyzw: constant shape, so no inner loop
    for (uint32_t i = 0; i < count; ++i) {
      out[size_t(i) * 4] += w * d[size_t(i) * 3];
      out[size_t(i) * 4 + 1] += w * d[size_t(i) * 3 + 1];
      out[size_t(i) * 4 + 2] += w * d[size_t(i) * 3 + 2];
    }
  } else {
    for (uint32_t i = 0; i < count; ++i) {
      for (uint32_t c = 0; c < comps; ++c) out[size_t(i) * out_stride + c] += w * d[size_t(i) * comps + c];
    }
  }
}

inline float length2(const float* v) {
  return v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
}

// Normalizes the xyz of `count` vectors `stride` floats apart, given their squared lengths (overwritten). A
// zero-length vector stays zero. Split from the skinning loop so the independent 1/sqrt of a whole block
// vectorizes (this file is built with -fno-math-errno -fno-trapping-math) instead of stalling each vertex on sqrt + div
// latency.
void normalizeBlock(float* __restrict v, uint32_t stride, float* __restrict len2, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    const float inv = 1.0f / std::sqrt(len2[i]);  // computed unconditionally: a select, not a branch
    len2[i] = len2[i] > 0.0f ? inv : 1.0f;
  }
  for (uint32_t i = 0; i < count; ++i) {
    float* x = v + size_t(i) * stride;
    x[0] *= len2[i], x[1] *= len2[i], x[2] *= len2[i];
  }
}

// One block's step 3: its inputs, and where its results go (outputs morphed in place; normals and tangents null
// when skipped).
struct SkinBlock {
  const PrimitiveData& p;
  const Columns* palette;  // skinned: the joints' K matrices
  const Columns& rigid;    // rigid: K of the world matrix, and its cofactor for normals
  const Columns& rigid_cof;
  const double* origin;
  Float4 origin_f;
  const float* fpivot;
  float* positions;
  float* normals;
  float* tangents;
  float* normal_len2;  // per vertex of the block, for normalizeBlock
  float* tangent_len2;
  uint32_t begin, end;
};

// Skins (kSkinned, K influences per vertex: 0 when not known at compile time) or transforms one block. A template
// so the blended matrix stays in registers: chosen through a pointer between it and the rigid one, it lived on
// the stack (a store and four loads per vertex).
template <bool kSkinned, uint32_t K>
inline void skinBlock(const SkinBlock& b) {
  const uint32_t k = b.p.influences;
  for (uint32_t v = b.begin; v < b.end; ++v) {
    Columns m;
    float weight_sum = 1.0f;
    if constexpr (kSkinned) {
      weight_sum = blendJoints<K>(&b.p.skin_weights[size_t(v) * k], &b.p.joints[size_t(v) * k], k, b.palette, m);
    } else {
      m = b.rigid;
    }
    float* pos = &b.positions[size_t(v) * 3];
    const Float4 local =
        m.c[0] * (pos[0] - b.fpivot[0]) + m.c[1] * (pos[1] - b.fpivot[1]) + m.c[2] * (pos[2] - b.fpivot[2]) + m.c[3];
    if (weight_sum == 1.0f) {
      const Float4 placed = local + b.origin_f;
      pos[0] = placed[0], pos[1] = placed[1], pos[2] = placed[2];
    } else {
      for (int r = 0; r < 3; ++r) pos[r] = float(double(local[r]) + double(weight_sum) * b.origin[r]);
    }
    if (b.normals) {
      const Columns& nm = kSkinned ? m : b.rigid_cof;  // skinned normals: the blended matrix itself (see deform.cpp)
      float* n = &b.normals[size_t(v) * 3];
      const Float4 t = nm.c[0] * n[0] + nm.c[1] * n[1] + nm.c[2] * n[2];
      n[0] = t[0], n[1] = t[1], n[2] = t[2];
      b.normal_len2[v - b.begin] = length2(n);
    }
    if (b.tangents) {
      float* tg = &b.tangents[size_t(v) * 4];  // w (handedness) untouched
      const Float4 t = m.c[0] * tg[0] + m.c[1] * tg[1] + m.c[2] * tg[2];
      tg[0] = t[0], tg[1] = t[1], tg[2] = t[2];
      b.tangent_len2[v - b.begin] = length2(tg);
    }
  }
}

// Inlined into each multi-versioned clone of run(): a step compiled on its own would take the baseline target.
#if defined(__GNUC__) || defined(__clang__)
#define MORPHKIT_STEP inline __attribute__((always_inline))
#else
#define MORPHKIT_STEP inline
#endif

// The cofactor matrix of m's 3×3 (a positive multiple of the inverse-transpose), sign-corrected under a mirror: the
// rigid path's normal matrix.
inline Columns cofactorColumns(const DMat4& m) {
  double c[3][3];
  c[0][0] = m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1);
  c[0][1] = m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2);
  c[0][2] = m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0);
  c[1][0] = m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2);
  c[1][1] = m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0);
  c[1][2] = m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1);
  c[2][0] = m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1);
  c[2][1] = m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2);
  c[2][2] = m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0);
  const double det = m(0, 0) * c[0][0] + m(0, 1) * c[0][1] + m(0, 2) * c[0][2];
  const double sign = det < 0 ? -1.0 : 1.0;  // keep the normal on its side under a mirror
  Columns out{};
  for (int col = 0; col < 3; ++col)
    out.c[col] = Float4{float(sign * c[0][col]), float(sign * c[1][col]), float(sign * c[2][col]), 0.0f};
  return out;
}

// Output pointers per packed attribute id; tangents are morphed in place in the 4-wide output (stride 4). On the
// stack for the usual attribute count: a range job allocates nothing (it runs once per task per frame).
struct AttributeOutputs {
  static constexpr uint32_t kInline = 16;
  float* out_buffer[kInline] = {};
  uint32_t stride_buffer[kInline] = {};
  std::vector<float*> out_heap;
  std::vector<uint32_t> stride_heap;
  float** out = out_buffer;
  uint32_t* stride = stride_buffer;
};

inline void bindOutputs(const MorphSkinJob& job, const PackedTargets& packed, AttributeOutputs& o) {
  const uint32_t attr_count = PackedTargets::kTexcoord0 + packed.texcoord_sets + packed.color_sets;
  if (attr_count > AttributeOutputs::kInline) {
    o.out_heap.assign(attr_count, nullptr);
    o.stride_heap.assign(attr_count, 0);
    o.out = o.out_heap.data();
    o.stride = o.stride_heap.data();
  }
  o.out[PackedTargets::kPosition] = job.out_positions.data();
  o.stride[PackedTargets::kPosition] = 3;
  if (!job.out_normals.empty())
    o.out[PackedTargets::kNormal] = job.out_normals.data(), o.stride[PackedTargets::kNormal] = 3;
  if (!job.out_tangents.empty())
    o.out[PackedTargets::kTangent] = job.out_tangents.data(), o.stride[PackedTargets::kTangent] = 4;
  for (uint32_t s = 0; s < job.out_texcoords.size(); ++s) {
    o.out[PackedTargets::kTexcoord0 + s] = job.out_texcoords[s].data();
    o.stride[PackedTargets::kTexcoord0 + s] = 2;
  }
  for (uint32_t s = 0; s < job.out_colors.size(); ++s) {
    o.out[PackedTargets::kTexcoord0 + packed.texcoord_sets + s] = job.out_colors[s].data();
    o.stride[PackedTargets::kTexcoord0 + packed.texcoord_sets + s] = 4;
  }
}

// Transforms in float, relative to two origins (the compute path's split, docs/LAYOUTS.md §5), so that far
// from the origin float keeps the digits a small primitive needs: a vertex enters as p − pivot (pivot: the
// float centre of the base positions, PackedTargets::pivot; the subtraction of nearby floats is exact), each
// matrix J = [R | T] becomes K = [R | R·pivot + T − origin] in float with `origin` (double) a point near every
// R·pivot + T, and position = Σw·origin + Σ w·K·(p − pivot), the last add in double. Every float operand is
// then of the primitive's own size. Rigid primitives use K of the world matrix (origin = its R·pivot + T) and
// the cofactor matrix for normals.
struct JobTransforms {
  Columns palette_buffer[64];
  std::vector<Columns> palette_heap;
  Columns* palette = palette_buffer;  // skinned: the K matrix of each joint the primitive uses
  Columns rigid{}, rigid_cof{};
  double origin[3] = {0, 0, 0};
  Float4 origin_f{};
};

inline void prepareTransforms(const MorphSkinJob& job, const PackedTargets& packed, JobTransforms& x) {
  const bool skinned = !job.joint_matrices.empty();
  auto toColumns = [&](const DMat4& j) {
    Columns out;
    for (int c = 0; c < 3; ++c) out.c[c] = Float4{float(j(0, c)), float(j(1, c)), float(j(2, c)), 0.0f};
    const DVec3 placed = pivotPlaced(j, packed.pivot);
    out.c[3] =
        Float4{float(placed.x - x.origin[0]), float(placed.y - x.origin[1]), float(placed.z - x.origin[2]), 0.0f};
    return out;
  };
  const uint32_t joint_count =
      skinned ? std::min<uint32_t>(packed.joints_needed, uint32_t(job.joint_matrices.size())) : 0;
  if (joint_count > 64) {
    x.palette_heap.resize(joint_count);
    x.palette = x.palette_heap.data();
  }
  // The one origin split (splitOrigin, deform.h), over the joints this primitive uses.
  const DVec3 split = skinned ? splitOrigin(job.joint_matrices.first(joint_count), packed.pivot)
                              : splitOrigin(std::span<const DMat4>(&job.world, 1), packed.pivot);
  // The origin is any point near the R·pivot + T; a float one lets a vertex whose weights sum to exactly 1 (every
  // rigid vertex, most skinned ones) take the last add in float: the float sum of two floats is the double sum
  // rounded once to float (double has more than twice float's digits), so the result is the double add's, bit
  // for bit, without its conversions.
  x.origin[0] = double(float(split.x)), x.origin[1] = double(float(split.y)), x.origin[2] = double(float(split.z));
  x.origin_f = Float4{float(x.origin[0]), float(x.origin[1]), float(x.origin[2]), 0.0f};
  if (skinned) {
    for (uint32_t j = 0; j < joint_count; ++j) x.palette[j] = toColumns(job.joint_matrices[j]);
  } else {
    x.rigid = toColumns(job.world);
    x.rigid_cof = cofactorColumns(job.world);
  }
}

// Step 1: the base attributes of the block copied into the outputs (the morph accumulators).
MORPHKIT_STEP void copyBaseBlock(const MorphSkinJob& job, uint32_t block_begin, uint32_t count) {
  const PrimitiveData& p = *job.primitive;
  std::copy_n(&p.position[size_t(block_begin) * 3], size_t(count) * 3, &job.out_positions[size_t(block_begin) * 3]);
  if (!job.out_normals.empty()) {
    std::copy_n(&p.normal[size_t(block_begin) * 3], size_t(count) * 3, &job.out_normals[size_t(block_begin) * 3]);
  }
  if (!job.out_tangents.empty()) {
    std::copy_n(&p.tangent[size_t(block_begin) * 4], size_t(count) * 4, &job.out_tangents[size_t(block_begin) * 4]);
  }
  for (size_t s = 0; s < job.out_texcoords.size(); ++s) {
    std::copy_n(&p.texcoords[s][size_t(block_begin) * 2], size_t(count) * 2,
                &job.out_texcoords[s][size_t(block_begin) * 2]);
  }
  for (size_t s = 0; s < job.out_colors.size(); ++s) {
    std::copy_n(&p.colors[s][size_t(block_begin) * 4], size_t(count) * 4, &job.out_colors[s][size_t(block_begin) * 4]);
  }
}

// Step 2: for each active target and each of its streams overlapping the block, one axpy. Deltas that cannot stay
// cached from frame to frame (prefetchesStreams) are prefetched one block ahead.
MORPHKIT_STEP void morphBlock(const MorphSkinJob& job, const PackedTargets& packed,
                              std::span<const ActiveTarget> active, const AttributeOutputs& outputs,
                              bool prefetch_streams, uint32_t block_begin, uint32_t block_end) {
  constexpr uint32_t kBlockVertices = FastMorphSkinJob::kBlockVertices;
  for (const ActiveTarget& a : active) {
    const uint32_t t = a.target;
    const float w = a.weight;
    for (uint32_t si = packed.target_streams[t]; si < packed.target_streams[t + 1]; ++si) {
      const PackedTargets::Stream& s = packed.streams[si];
      float* out = outputs.out[s.attribute];
      if (!out) continue;  // an output the caller skipped
      const uint32_t lo = std::max(block_begin, s.first), hi = std::min(block_end, s.last);
      if (lo >= hi) continue;
      const uint32_t stride = outputs.stride[s.attribute];
      const float* d = &packed.deltas[s.offset + size_t(lo - s.first) * s.components];
      axpy(out + size_t(lo) * stride, stride, d, s.components, w, hi - lo);
      // The next block's part of this stream: about 100 streams interleave block by block, more than the
      // hardware prefetchers follow, so ask for it now (it arrives while the rest of this block runs).
      // Measured at 52 × 200k: 7–8 % less time on 1 and 2 threads (docs/PERFORMANCE.md). Never past the job's
      // range: the next range is another job's, often on another thread, and asking for it cost each job of a
      // frame split into chunks about 10 µs (bench/deform_bench.cpp BM_FastJobSetUp).
      const uint32_t next_hi = std::min({block_end + kBlockVertices, s.last, job.end});
      if (prefetch_streams && next_hi > hi) {
        const char* next = reinterpret_cast<const char*>(d + size_t(hi - lo) * s.components);
        const size_t bytes = size_t(next_hi - hi) * s.components * sizeof(float);
        for (size_t o = 0; o < bytes; o += 64) prefetch(next + o);
      }
    }
  }
}

}  // namespace

// 32 MiB: the last-level cache one core of current server parts sees (32 MiB per CCD on the development VM's
// EPYC). Under it the deltas stay cached between frames and the prefetches only cost instructions: the 20k-vertex
// demo (14 MB of deltas) posed on one thread in 0.366 ms without them, 0.416 with (the 8 MiB threshold before;
// docs/PERFORMANCE.md). Over it (52 × 200k: 137 MB) they save 7–8 %.
bool FastMorphSkinJob::prefetchesStreams(const PackedTargets& packed) {
  return packed.deltas.size() * sizeof(float) > (size_t(32) << 20);
}

bool FastMorphSkinJob::validate() const {
  if (!packed || !job.validateLayout()) return false;
  if (!job.joint_matrices.empty() && packed->joints_needed > job.joint_matrices.size()) return false;
  const PrimitiveData& p = *job.primitive;
  if (packed->vertex_count != p.vertex_count || packed->target_count != p.targets.size() ||
      packed->texcoord_sets != p.texcoords.size() || packed->color_sets != p.colors.size() ||
      packed->target_streams.size() != size_t(packed->target_count) + 1) {
    return false;
  }
  for (const PackedTargets::Stream& s : packed->streams) {
    if (s.first > s.last || s.last > packed->vertex_count ||
        s.offset + size_t(s.components) * (s.last - s.first) > packed->deltas.size()) {
      return false;
    }
  }
  return packed->target_streams.back() == packed->streams.size();
}

MORPHKIT_FAST_CLONES bool FastMorphSkinJob::run() const {
#if defined(MORPHKIT_SCALAR_ONLY) && MORPHKIT_SCALAR_ONLY
  if (!validate()) return false;
  return job.run();
#else
  if (!validate()) return false;
  const PrimitiveData& p = *job.primitive;
  const bool has_normals = !job.out_normals.empty();  // validated: the primitive has them too
  const bool has_tangents = !job.out_tangents.empty();
  const bool skinned = !job.joint_matrices.empty();
  const uint32_t k = p.influences;

  // Active targets, the one rule (|w| > 0: a zero weight contributes nothing; skipping it is exact).
  ActiveTarget active_buffer[256];
  std::vector<ActiveTarget> active_heap;
  std::span<ActiveTarget> active(active_buffer);
  if (packed->target_count > 256) {
    active_heap.resize(packed->target_count);
    active = active_heap;
  }
  const uint32_t active_count = buildActiveTargets(job.weights.subspan(0, packed->target_count), 0.0f, active);

  AttributeOutputs outputs;
  bindOutputs(job, *packed, outputs);

  JobTransforms x;
  prepareTransforms(job, *packed, x);
  const float fpivot[3] = {packed->pivot[0], packed->pivot[1], packed->pivot[2]};

  const bool prefetch_streams = prefetchesStreams(*packed);
  for (uint32_t block_begin = job.begin; block_begin < job.end; block_begin += kBlockVertices) {
    const uint32_t block_end = std::min(job.end, block_begin + kBlockVertices);
    const uint32_t count = block_end - block_begin;

    copyBaseBlock(job, block_begin, count);
    morphBlock(job, *packed, std::span<const ActiveTarget>(active.data(), active_count), outputs, prefetch_streams,
               block_begin, block_end);

    // 3. Skin (or rigid transform) the morphed block in place; normals and tangents are normalized after it.
    float normal_len2[kBlockVertices], tangent_len2[kBlockVertices];
    SkinBlock block{p,
                    x.palette,
                    x.rigid,
                    x.rigid_cof,
                    x.origin,
                    x.origin_f,
                    fpivot,
                    job.out_positions.data(),
                    has_normals ? job.out_normals.data() : nullptr,
                    has_tangents ? job.out_tangents.data() : nullptr,
                    normal_len2,
                    tangent_len2,
                    block_begin,
                    block_end};
    if (!skinned) {
      skinBlock<false, 0>(block);
    } else if (k == 4) {
      skinBlock<true, 4>(block);
    } else {
      skinBlock<true, 0>(block);
    }
    if (has_normals) normalizeBlock(&job.out_normals[size_t(block_begin) * 3], 3, normal_len2, count);
    if (has_tangents) normalizeBlock(&job.out_tangents[size_t(block_begin) * 4], 4, tangent_len2, count);
  }
  return true;
#endif
}

}  // namespace morphkit
