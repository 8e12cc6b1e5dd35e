// The wave vectoriser (VectorizeWaves.h): one class whose members three files define, one concept
// each. VectorizeWaves.cpp: the driver, which values are uniform or varying, and the wave's
// control flow under lane masks (blocks, branches, loops, phis); WaveEmit.cpp: each instruction
// as the wave's (widening, per-lane loops, cross-lane operations); WaveMemory.cpp: the lanes'
// addresses (affine in their ids, the wave's shape) and the loads and stores they make.
#pragma once

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptx2amd::host::detail {

/// The lanes of a row of a 2-D block that gathers and scatters check for (a 16-wide block).
inline constexpr unsigned RowLanes = 16;
/// Inlined instructions past which a kernel is not vectorised (compile time).
inline constexpr unsigned MaxInstructions = 40000;
/// A wave function's instructions past which the kernel runs as work-items instead: the host's
/// code generation grows faster than the function (greedy register allocation, machine
/// sinking). cuBLASLt's magma_hgemmEx kernel (7,537 instructions) vectorised into 38,195, which
/// took 55 s to compile where its compiled workgroup took 2 s, and ran a 512^3 hgemm no faster
/// (437 against 352 ms); the libraries' other kernels vectorise into 12,000 or fewer.
inline constexpr unsigned MaxWaveInstructions = 20000;
/// Private bytes a wave may take on its worker's stack (WaveSize copies of each variable).
inline constexpr uint64_t MaxPrivateBytes = 2u << 20;
/// The same for a wave that meets at barriers, whose private memory and scratch lie in its
/// frame (a fiber stack's 60 KiB also holds what lives across a barrier).
inline constexpr uint64_t MaxFramedBytes = 32u << 10;

/// The offset of the LaneState field \p P points at, or -1 when it points elsewhere.
int64_t stateOffset(const llvm::Value *P);

enum class CallKind {
  Drop,          ///< no effect on a wave's result (lifetime, assume, wave barrier)
  Vector,        ///< an intrinsic with a vector form
  Once,          ///< no lane-dependent effect: one scalar call for the wave
  PerLane,       ///< side effects or no vector form: one call per active lane
  State,         ///< the LaneState accessor
  Ballot,        ///< the wave's lane mask of a predicate
  Bpermute,      ///< ds_bpermute
  Readlane,      ///< one lane's value
  Readfirstlane, ///< the first active lane's value
  Reject,
};

class Vectorizer {
public:
  Vectorizer(llvm::Function &Src, unsigned W, bool MaskedMemory, bool BreakXor = false)
      : Src(Src), M(*Src.getParent()), C(M.getContext()), DL(M.getDataLayout()), W(W),
        MaskedMemory(MaskedMemory), BreakXor(BreakXor) {}

  /// Builds the wave function \p Name, of at most \p MaxSize instructions; an empty reason on
  /// success.
  std::string run(llvm::StringRef Name, unsigned MaxSize);
  /// Whether the wave function calls the workgroup barrier.
  bool hasBarrier() const { return HasBarrier; }

private:
  llvm::Function &Src; ///< the prepared copy (structured, LCSSA)
  llvm::Module &M;
  llvm::LLVMContext &C;
  const llvm::DataLayout &DL;
  unsigned W;
  bool MaskedMemory;           ///< masked loads, stores, gathers and scatters are instructions
  bool BreakXor;               ///< tests only: a 32-bit xor's lanes come out one too high
  llvm::Function *F = nullptr; ///< the wave
  std::string Why;
  llvm::DominatorTree DT;
  llvm::PostDominatorTree PDT;
  llvm::LoopInfo LI;
  llvm::DenseSet<const llvm::Value *> Varying;
  /// blocks ending in a branch on a varying condition
  llvm::DenseSet<const llvm::BasicBlock *> Divergent;
  llvm::DenseSet<const llvm::Loop *> DivergentLoops;
  /// Divergent non-latch branch: block -> (region entry, join)
  llvm::DenseMap<const llvm::BasicBlock *, std::pair<llvm::BasicBlock *, llvm::BasicBlock *>>
      Regions;
  /// join -> its divergent branch
  llvm::DenseMap<const llvm::BasicBlock *, const llvm::BasicBlock *> JoinOf;

  // Emission state.
  llvm::IRBuilder<> *B = nullptr;
  const llvm::BasicBlock *CurOld = nullptr; ///< the old block being emitted
  llvm::DenseMap<const llvm::Value *, llvm::Value *> Map;
  /// old block -> its new first/last
  llvm::DenseMap<const llvm::BasicBlock *, llvm::BasicBlock *> First, Last;
  llvm::DenseMap<const llvm::BasicBlock *, llvm::Value *> Mask;
  std::map<std::pair<const llvm::BasicBlock *, const llvm::BasicBlock *>, llvm::Value *> EdgeMask;
  llvm::MapVector<const llvm::BasicBlock *, llvm::PHINode *> MaskPhi;
  std::vector<std::pair<llvm::PHINode *, llvm::PHINode *>> Phis; ///< (old, new) to fill
  /// Divergent loops: each exit phi's accumulator (header phi) and its value at the latch.
  llvm::MapVector<const llvm::PHINode *, std::pair<llvm::PHINode *, llvm::Value *>> Accumulators;
  llvm::Value *Ids = nullptr, *Exec = nullptr;
  llvm::AllocaInst *PermuteBuffer = nullptr;
  llvm::AllocaInst *Scratch = nullptr; ///< operands and results of lanes run one by one
  uint64_t ScratchBytes = 0;
  bool HasBarrier = false;
  uint64_t PrivateBytes = 0;

  bool reject(const llvm::Twine &Reason) {
    if (Why.empty())
      Why = Reason.str();
    return false;
  }

  // The driver and the wave's control flow (VectorizeWaves.cpp).
  CallKind callKind(const llvm::CallInst &CI) const;
  bool classify();
  bool checkShape();
  bool isDivergentJoin(const llvm::BasicBlock *BB) const { return JoinOf.count(BB); }
  const llvm::Loop *divergentExitOf(const llvm::BasicBlock *BB) const;
  void emitBlock(llvm::BasicBlock &BB);
  bool emitTerminator(llvm::BasicBlock &BB);
  void fillPhis();

  // Values and instructions as the wave's (WaveEmit.cpp).
  llvm::Type *widen(llvm::Type *T) const;
  llvm::Value *get(const llvm::Value *V);
  llvm::Value *vec(const llvm::Value *V);
  llvm::Value *broadcast(llvm::Value *V);
  llvm::Value *laneMask(unsigned PerLane);
  llvm::Value *repeatLanes(llvm::Value *V, unsigned PerLane);
  llvm::Constant *iota(llvm::Type *Elem, uint64_t Step) const;
  llvm::Value *any(llvm::Value *M) { return B->CreateOrReduce(M); }
  bool emit(llvm::Instruction &I);
  bool emitUniform(llvm::Instruction &I);
  bool emitVarying(llvm::Instruction &I);
  bool emitVaryingOperation(llvm::Instruction &I, llvm::Type *WT);
  bool emitVaryingAccess(llvm::Instruction &I, llvm::Type *WT);
  bool emitVaryingCall(llvm::CallInst &CI, llvm::Type *WT);
  bool emitVaryingElements(llvm::Instruction &I);
  /// \p V as the wave's \p I (named after it when an instruction): true.
  bool bind(const llvm::Instruction &I, llvm::Value *V);
  llvm::Value *scalarize(llvm::Instruction &I);

  // Lanes' addresses and memory (WaveMemory.cpp).
  struct Run {
    llvm::Value *Ok = nullptr;    ///< scalar i1: the active lanes' values step as asked
    llvm::Value *First = nullptr; ///< lane 0's value
  };
  /// A varying integer as lane L's Base + Cx*x + Cy*y + Cz*z + CL*L of its work-item ids and
  /// lane number (Base and the multiples uniform scalars of its type, a null multiple 0), as
  /// long as Fits holds (no lane's value wrapped where the source widened it).
  struct Affine {
    llvm::Value *Base = nullptr;
    llvm::Value *C[4] = {nullptr, nullptr, nullptr, nullptr};
    llvm::Value *Fits = nullptr; ///< scalar i1; null: true
  };
  std::optional<Affine> affine(const llvm::Value *Old, unsigned Depth = 0);
  /// X and Y, either null for true.
  llvm::Value *both(llvm::Value *X, llvm::Value *Y) { return !X ? Y : !Y ? X : B->CreateAnd(X, Y); }
  /// \p A's value times \p K.
  void scale(Affine &A, llvm::Value *K) {
    A.Base = B->CreateMul(A.Base, K);
    for (llvm::Value *&C : A.C)
      C = C ? B->CreateMul(C, K) : nullptr;
  }
  std::optional<Affine> affinePointer(const llvm::Value *P, llvm::IntegerType *IT, unsigned Depth);
  /// What the wave's work-item ids are, found once at its entry: Flat, lane L's x is lane 0's
  /// plus L and y and z are lane 0's; Rows[K], lanes form rows of RowLanes[K] (lane L's x is
  /// lane 0's plus L % R, y lane 0's plus L / R, z lane 0's). Both only for a whole wave.
  struct Shape {
    llvm::Value *Flat = nullptr;
    llvm::SmallVector<std::pair<unsigned, llvm::Value *>, 2> Rows;
    llvm::Value *First[3] = {nullptr, nullptr, nullptr};
  };
  std::optional<Shape> WaveShape;
  const Shape &shape();
  /// A memory access whose lane L's address is Lane0 + Step * L when the wave is flat, and
  /// Lane0 + Step * (L % R) + RowStep[R] * (L / R) when it has rows of R lanes.
  struct Pattern {
    llvm::Value *Lane0 = nullptr; ///< a pointer
    int64_t Step = 0;             ///< 0 or the element's size
    bool Strided = false;         ///< another step: the lanes' elements are never adjacent
    llvm::SmallVector<llvm::Value *, 2> RowStep;
    llvm::Value *Fits = nullptr;
  };
  std::optional<Pattern> pattern(const llvm::Value *OldPtr, llvm::Type *Elem);
  llvm::Value *concat(llvm::ArrayRef<llvm::Value *> Parts);
  llvm::Value *loadAt(llvm::Type *T, llvm::Value *P, llvm::Align A, unsigned Lanes, bool Same);
  llvm::Value *loadGeneric(llvm::LoadInst &L, llvm::Value *Ptrs, llvm::Value *Mk);
  void storeGeneric(llvm::StoreInst &S, llvm::Value *V, llvm::Value *Ptrs, llvm::Value *Mk);
  Run stepsBy(llvm::Value *V, uint64_t Step);
  Run linear(const llvm::Value *Old, uint64_t Step, unsigned Depth = 0);
  Run consecutive(const llvm::Value *OldPtr, llvm::Value *Ptrs, llvm::Type *Elem);
  llvm::Value *inRows(llvm::Value *Ptrs, llvm::Type *Elem, llvm::Value *Mk);
  llvm::Value *gather(llvm::LoadInst &L, llvm::Value *Ptrs, llvm::Value *Mk, bool CheckRows = true);
  void scatter(llvm::StoreInst &S, llvm::Value *V, llvm::Value *Ptrs, llvm::Value *Mk,
               bool CheckRows = true);
  llvm::Value *load(llvm::LoadInst &L);
  void store(llvm::StoreInst &S);
};

} // namespace ptx2amd::host::detail
