//===- test/conformance/Harness.h - instruction conformance harness -*- C++ -*-===//
//
// A case is data: a PTX snippet over named registers, the operands' widths, and a C++ reference
// written from the PTX ISA text. The harness turns every case of a family into one kernel of one
// module (each thread loads its inputs, runs the snippet, stores its outputs), loads the module
// through the host backend for each target, runs it over the case's inputs and compares the
// results with the reference, bit for bit unless the case brings its own acceptance test.
//
//   Case C;
//   C.Body = "add.sat.s32 %d, %a, %b;";
//   C.Inputs = {s32("a"), s32("b")};
//   C.Outputs = {s32("d")};
//   C.Ref = [](const uint64_t *In, uint64_t *Out) { ...; return true; };
//
// Inputs: exhaustive when the inputs total at most 16 bits; otherwise the cross product of every
// operand's special values (sampled when it is too large) and random values.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace conformance {

/// A register operand of a case, named as in the case's PTX snippet (`%Name`).
struct Operand {
  std::string Name;
  unsigned Bits = 32; ///< 1 (a predicate), 16, 32 or 64
  /// Values always tried besides the width's special values (shift counts, positions, ...).
  std::vector<uint64_t> Extra;
  /// When nonzero, half of the random values are drawn below it (counts, positions, selectors).
  uint64_t SmallBelow = 0;
};

Operand pred(std::string Name);
Operand b16(std::string Name);
Operand b32(std::string Name);
Operand b64(std::string Name);
Operand ofBits(std::string Name, unsigned Bits);
/// A count/position operand of \p Bits: 0..Limit+1 and huge values always, small values often.
Operand count(std::string Name, unsigned Bits, unsigned Limit);

/// Computes a case's outputs from its inputs (each masked to its operand's width); returns false
/// when PTX leaves the result unspecified for these inputs (the run then only has to finish).
using Reference = std::function<bool(const uint64_t *In, uint64_t *Out)>;
/// Accepts a result that is not bit-identical (a documented error bound); null: bit-exact only.
using Acceptance =
    std::function<bool(const uint64_t *In, const uint64_t *Expected, const uint64_t *Got)>;
/// Output \p Index as any two conforming runs give it: what the ISA leaves open (a NaN's payload)
/// made one value. Runs on different host CPUs are compared by it.
using Canonicalizer = std::function<uint64_t(size_t Index, uint64_t Value)>;

struct Case {
  std::string Name; ///< unique in its family; empty: the snippet, whitespace collapsed
  std::string Body; ///< PTX instructions over %Name registers
  std::vector<Operand> Inputs, Outputs;
  Reference Ref;
  Acceptance Accept;
  Canonicalizer Canonical; ///< null: outputs as they are
  /// Extra register declarations the snippet needs (temporaries), e.g. ".reg .b32 %t;".
  std::string Decls;
};

struct Family {
  std::string Name;
  std::vector<Case> Cases;
};

struct Options {
  uint64_t Random = 2000;          ///< random inputs per case (beside the special values)
  uint64_t SpecialCross = 4096;    ///< at most this many special-value combinations
  unsigned ExhaustiveBits = 16;    ///< exhaustive when the inputs total at most this many bits
  uint64_t Seed = 0x5eed;          ///< random inputs are reproducible for a seed
  unsigned MaxMismatchesShown = 3; ///< per case
};

/// A case that fails on a target because of a known lowering or host-backend bug.
struct KnownFailure {
  std::string Family, Case; ///< Case as reported (its Name)
  std::string Target;       ///< empty: every target
};

/// What one family did on one target.
struct FamilyResult {
  std::string Family, Target;
  unsigned Cases = 0, Exhaustive = 0, Sampled = 0;
  uint64_t Inputs = 0;
  unsigned Passed = 0, Failed = 0;
  unsigned ExpectedFailures = 0;   ///< failed, and listed as a known bug
  unsigned UnexpectedPasses = 0;   ///< listed as a known bug, yet passed (counted in Failed)
  std::vector<std::string> Report; ///< one text per failing case: the first mismatches
  /// Per case, a digest of its every output for every input, bit for bit (instruction families;
  /// kernel families leave it empty, as their atomics' old values depend on the schedule).
  std::vector<std::pair<std::string, uint64_t>> Digests;
};

/// Runs every case of \p F on \p Target through the host backend.
FamilyResult runFamily(const Family &F, const std::string &Target, const Options &O,
                       const std::vector<KnownFailure> &Known);

/// The PTX module the harness builds for \p F (one kernel per case, `k<index>`).
std::string familyModule(const Family &F);

// Helpers for references.
inline uint64_t mask(unsigned Bits) { return Bits >= 64 ? ~0ull : (1ull << Bits) - 1; }
inline int64_t sext(uint64_t V, unsigned Bits) {
  return Bits >= 64 ? int64_t(V) : int64_t(V << (64 - Bits)) >> (64 - Bits);
}

} // namespace conformance
