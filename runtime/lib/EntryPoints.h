//===- EntryPoints.h - what the tables of entry points make -*- C++ -*-===//
//
// Both libraries export every function that NVIDIA's do (lib/DriverEntryPoints.def,
// cudart/RuntimeEntryPoints.def, written by scripts/gen-entry-points). A table line says how a
// name is served: by a function of its area's file, by another such function (SAME), or by a
// not-supported body (NONE) that the including file makes with the macros here.
//
//===----------------------------------------------------------------------===//
#pragma once

// An exported function that is another one: a tail jump leaves the argument registers, the
// stack and the return address as the caller made them, so one definition serves any signature
// (a per-thread-stream variant, or an older variant with the same ABI).
#if defined(__x86_64__)
#if defined(__CET__) && (__CET__ & 1)
#define PTX2AMD_ENTRY_LANDING "endbr64\n"
#else
#define PTX2AMD_ENTRY_LANDING ""
#endif
#define PTX2AMD_SAME_ENTRY(Name, Target)                                                           \
  asm(".pushsection .text\n.globl " #Name "\n.type " #Name ", @function\n.p2align 4\n" #Name       \
      ":\n" PTX2AMD_ENTRY_LANDING "jmp " #Target "@PLT\n.size " #Name ", .-" #Name                 \
      "\n.popsection\n");
#elif defined(__aarch64__)
#define PTX2AMD_SAME_ENTRY(Name, Target)                                                           \
  asm(".pushsection .text\n.globl " #Name "\n.type " #Name ", %function\n.p2align 4\n" #Name       \
      ":\nb " #Target "\n.size " #Name ", .-" #Name "\n.popsection\n");
#else
#error "PTX2AMD_SAME_ENTRY: tail jump not written for this architecture"
#endif

// A per-thread-default-stream variant (_ptsz, _ptds) of Target: Target, called while the thread
// is marked as in such a call, where a null stream is the thread's per-thread default stream
// (ptx2amd::runtime::resolveStream). It keeps the caller's frame as it was: the argument
// registers are saved around the marking, the caller's return address moves to a per-thread
// stack (ptx2amd_per_thread_enter/leave, in libcuda.so.1) so that Target finds its stack
// arguments where the caller put them, and the result comes back in rax. No per-thread entry
// point takes floating-point arguments.
#if defined(__x86_64__)
#define PTX2AMD_PER_THREAD_ENTRY(Name, Target)                                                     \
  asm(".pushsection .text\n.globl " #Name "\n.type " #Name ", @function\n.p2align 4\n" #Name       \
      ":\n" PTX2AMD_ENTRY_LANDING "push %rdi\npush %rsi\npush %rdx\npush %rcx\npush %r8\n"         \
      "push %r9\nmov 48(%rsp), %rdi\nsub $8, %rsp\ncall ptx2amd_per_thread_enter@PLT\n"            \
      "add $8, %rsp\npop %r9\npop %r8\npop %rcx\npop %rdx\npop %rsi\npop %rdi\nadd $8, %rsp\n"     \
      "call " #Target "@PLT\npush %rax\nsub $8, %rsp\ncall ptx2amd_per_thread_leave@PLT\n"         \
      "add $8, %rsp\nmov %rax, %r11\npop %rax\njmp *%r11\n.size " #Name ", .-" #Name               \
      "\n.popsection\n");
#else
// Elsewhere the variant is Target itself: a null stream is the legacy default stream there.
#define PTX2AMD_PER_THREAD_ENTRY(Name, Target) PTX2AMD_SAME_ENTRY(Name, Target)
#endif

extern "C" {
/// The per-thread entry points' marking: enter saves the caller's return address, leave
/// returns it.
void ptx2amd_per_thread_enter(void *ReturnAddress);
void *ptx2amd_per_thread_leave();
}
