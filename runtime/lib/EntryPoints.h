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
