/*
 * ptx2amd.h - the stable C API of the ptx2amd JIT library (libptx2amd).
 *
 * PTX text in, AMDGPU code object (HSACO) plus kernel metadata out:
 *
 *   ptx2amd_context *ctx;
 *   ptx2amd_context_create(&ctx);
 *   ptx2amd_context_set_target(ctx, "gfx90a");
 *   ptx2amd_result *res;
 *   ptx2amd_status s = ptx2amd_translate_ptx(ctx, text, size, "saxpy.ptx", NULL, &res);
 *   if (res) {
 *     const char *diags;
 *     ptx2amd_result_diagnostics(res, &diags);   // located messages, also on failure
 *     const void *obj; size_t obj_size;
 *     if (s == PTX2AMD_SUCCESS) ptx2amd_result_code_object(res, &obj, &obj_size);
 *     ptx2amd_result_destroy(res);
 *   }
 *   ptx2amd_context_destroy(ctx);
 *
 * Conventions (every function):
 *   - returns a ptx2amd_status; PTX2AMD_SUCCESS (0) means it did what it says. Nothing aborts the
 *     process or throws: bad input, out-of-memory and internal failures come back as statuses.
 *   - output parameters are written only on success, except where a function says otherwise
 *     (the translate and image-open functions always write their handle, NULL or not).
 *   - a NULL handle or NULL output pointer is PTX2AMD_ERROR_INVALID_ARGUMENT.
 *   - returned strings are NUL-terminated UTF-8 and returned pointers are owned by the handle they
 *     came from: valid until that handle is destroyed, never to be freed by the caller.
 *
 * Thread safety: every function may be called from any thread. One context may be used by many
 * threads at once (translations run in parallel; option setters are atomic with respect to
 * translations, and a translation uses the options as they were when it started). Results and
 * images are immutable: any number of threads may read one concurrently; destroying a handle
 * must not race with other calls on that same handle. There is no global mutable state beyond
 * what a context holds, except what is process-wide by nature: LLVM's one-time target
 * registration; a process-wide lock around the in-process linker (lld is not re-entrant), so the
 * short link step of concurrent translations runs one at a time; and, from the first code
 * generation on, LLVM's fatal-error handler and crash-recovery signal handlers, which turn a
 * code generator failure into a kernel left out instead of an exit.
 *
 * Versioning: functions and enumerators are only ever added. Results are queried through
 * getters (no structs cross the API), so new fields never change the ABI.
 */
#ifndef PTX2AMD_PTX2AMD_H
#define PTX2AMD_PTX2AMD_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define PTX2AMD_API
#else
#define PTX2AMD_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define PTX2AMD_VERSION_MAJOR 0
#define PTX2AMD_VERSION_MINOR 1
#define PTX2AMD_VERSION_PATCH 0

typedef enum ptx2amd_status {
  PTX2AMD_SUCCESS = 0,
  /** A NULL handle or output pointer, or an option value out of range. */
  PTX2AMD_ERROR_INVALID_ARGUMENT = 1,
  /** The target name is not one of ptx2amd_target_name(). */
  PTX2AMD_ERROR_UNKNOWN_TARGET = 2,
  /** The input could not be read: malformed PTX at module level (header, syntax outside
   * function bodies), a malformed container, or a binary that carries no PTX. Diagnostics say
   * what and where. */
  PTX2AMD_ERROR_INVALID_INPUT = 3,
  /** The PTX was read, but translating the module as a whole failed (a module-level lowering
   * problem, or code generation/linking failed). Diagnostics say why. A failure confined to a
   * function or kernel is not this status: see ptx2amd_result_kernel_translated(). */
  PTX2AMD_ERROR_TRANSLATION_FAILED = 4,
  /** An index past the end of a list. */
  PTX2AMD_ERROR_OUT_OF_RANGE = 5,
  /** The thing asked for does not exist in this result: the metadata of a kernel that was not
   * translated, a code object of a failed translation or of a textual output, and so on. */
  PTX2AMD_ERROR_NOT_AVAILABLE = 6,
  /** No kernel of that name in the module. */
  PTX2AMD_ERROR_NOT_FOUND = 7,
  PTX2AMD_ERROR_OUT_OF_MEMORY = 8,
  /** A bug in ptx2amd (an unexpected internal failure); the diagnostics may say more. */
  PTX2AMD_ERROR_INTERNAL = 9
} ptx2amd_status;

/** What a translation produces (ptx2amd_context_set_output). */
typedef enum ptx2amd_output {
  /** An AMDGPU code object (HSACO ELF) and its kernel metadata (the default). */
  PTX2AMD_OUTPUT_CODE_OBJECT = 0,
  /** LLVM IR text of the lowered module, before optimisation (a debugging aid). */
  PTX2AMD_OUTPUT_LLVM_IR = 1,
  /** AMDGPU assembly text after optimisation and code generation (a debugging aid). */
  PTX2AMD_OUTPUT_ASSEMBLY = 2
} ptx2amd_output;

/** What became of a function or kernel (ptx2amd_result_function_state). */
typedef enum ptx2amd_function_state {
  /** Translated; a kernel is in the code object. */
  PTX2AMD_FUNCTION_TRANSLATED = 0,
  /** Not translated: it uses something not supported yet, or calls a function that failed. */
  PTX2AMD_FUNCTION_FAILED = 1,
  /** A kernel translated but left out of the code object: it needs a symbol that the module does
   * not define (to be linked from elsewhere), or code generation failed for it alone. */
  PTX2AMD_FUNCTION_LEFT_OUT = 2,
  /** Not translated because the whole module failed (see ptx2amd_result_error()). */
  PTX2AMD_FUNCTION_MODULE_FAILED = 3
} ptx2amd_function_state;

/** Per-kernel metadata values (ptx2amd_result_kernel_property). All are read back from the
 * code object's NT_AMDGPU_METADATA note, except PTX2AMD_KERNEL_USES_DYNAMIC_LDS. */
typedef enum ptx2amd_kernel_property {
  PTX2AMD_KERNEL_KERNARG_SIZE = 0,          /**< kernarg segment bytes, hidden arguments included */
  PTX2AMD_KERNEL_KERNARG_ALIGN = 1,         /**< kernarg segment alignment */
  PTX2AMD_KERNEL_EXPLICIT_KERNARG_SIZE = 2, /**< bytes of the PTX parameters (CUDA's layout) */
  PTX2AMD_KERNEL_ARG_COUNT = 3,             /**< arguments, hidden ones included */
  PTX2AMD_KERNEL_EXPLICIT_ARG_COUNT = 4,    /**< PTX parameters: the first ARG_COUNT entries */
  PTX2AMD_KERNEL_STATIC_LDS_SIZE = 5,       /**< group segment bytes fixed at compile time */
  /** 1 when the kernel (or a function it calls) uses `.extern .shared` memory, whose size comes
   * at launch and sits after the static LDS; 0 otherwise. */
  PTX2AMD_KERNEL_USES_DYNAMIC_LDS = 6,
  PTX2AMD_KERNEL_SCRATCH_SIZE = 7, /**< private segment bytes per work-item */
  PTX2AMD_KERNEL_USES_DYNAMIC_STACK = 8,
  PTX2AMD_KERNEL_VGPR_COUNT = 9,
  PTX2AMD_KERNEL_SGPR_COUNT = 10,
  PTX2AMD_KERNEL_AGPR_COUNT = 11, /**< 0 on targets without AGPRs */
  PTX2AMD_KERNEL_VGPR_SPILL_COUNT = 12,
  PTX2AMD_KERNEL_SGPR_SPILL_COUNT = 13,
  PTX2AMD_KERNEL_WAVEFRONT_SIZE = 14, /**< 64 or 32 */
  PTX2AMD_KERNEL_MAX_FLAT_WORKGROUP_SIZE = 15
} ptx2amd_kernel_property;

/** Translation options and the scope of a client's use of the library. */
typedef struct ptx2amd_context ptx2amd_context;
/** The outcome of one translation: output, per-function status, metadata, diagnostics. */
typedef struct ptx2amd_result ptx2amd_result;
/** The PTX modules carried by a binary image (fatbin, cubin, ELF executable/library/object). */
typedef struct ptx2amd_image ptx2amd_image;

/* ---- Library ----------------------------------------------------------------------------- */

/** The library's version (any output pointer may be NULL). Compare with PTX2AMD_VERSION_* to
 * detect a header/library mismatch. */
PTX2AMD_API ptx2amd_status ptx2amd_get_version(int *major, int *minor, int *patch);

/** A short constant English description of a status ("success", "invalid argument", ...);
 * never NULL, also for values this version does not know. Static storage. */
PTX2AMD_API const char *ptx2amd_status_string(ptx2amd_status status);

/** The number of supported targets. */
PTX2AMD_API ptx2amd_status ptx2amd_target_count(size_t *count);

/** The name ("gfx90a", "gfx1100", ...) and wave size (64 or 32; may be NULL) of target \p index.
 * The name has static storage. */
PTX2AMD_API ptx2amd_status ptx2amd_target_name(size_t index, const char **name,
                                               unsigned *wave_size);

/* ---- Contexts ---------------------------------------------------------------------------- */

/** Creates a context with the default options: target gfx90a, optimisation level 3, code
 * object version 5, output PTX2AMD_OUTPUT_CODE_OBJECT. Destroy it with
 * ptx2amd_context_destroy(). */
PTX2AMD_API ptx2amd_status ptx2amd_context_create(ptx2amd_context **context);

/** Destroys a context (NULL is accepted and ignored). Translations running on it must have
 * returned. Results and images made through it stay valid: they do not refer to it. */
PTX2AMD_API ptx2amd_status ptx2amd_context_destroy(ptx2amd_context *context);

/** The default target of translations that name none (a name from ptx2amd_target_name()). */
PTX2AMD_API ptx2amd_status ptx2amd_context_set_target(ptx2amd_context *context,
                                                      const char *target);

/** Optimisation level 0..3 (the IR pipeline and the code generator); default 3. */
PTX2AMD_API ptx2amd_status ptx2amd_context_set_opt_level(ptx2amd_context *context, int level);

/** AMDGPU code object version 4, 5 or 6; default 5 (the newest that ROCm 5.x loads). */
PTX2AMD_API ptx2amd_status ptx2amd_context_set_code_object_version(ptx2amd_context *context,
                                                                   int version);

/** Code generation of a module on at most \p partitions parts in parallel (kernels that share
 * internal functions or shared memory stay together), linked into one code object: 0 (the
 * default) decides from the module's size (up to 8 parts for modules of 8 kernels or more and
 * about 10,000 IR instructions per part), 1 never splits. The code object depends on the module
 * and this setting only, not on the threads available. */
PTX2AMD_API ptx2amd_status ptx2amd_context_set_codegen_partitions(ptx2amd_context *context,
                                                                  unsigned partitions);

/** What translations produce; default PTX2AMD_OUTPUT_CODE_OBJECT. */
PTX2AMD_API ptx2amd_status ptx2amd_context_set_output(ptx2amd_context *context,
                                                      ptx2amd_output output);

/* ---- Translation ------------------------------------------------------------------------- */

/**
 * Translates one PTX module for \p target (NULL: the context's target).
 *
 * \p ptx points to \p size bytes of PTX text (no NUL needed; the text is copied). \p name names
 * the module in diagnostics (NULL: "<ptx>").
 *
 * A function or kernel that cannot be translated (an unsupported instruction, say) fails alone:
 * the others are still translated into the code object, and the result lists which kernels are
 * missing and why. The status is then still PTX2AMD_SUCCESS.
 *
 * \p *result is always written: a new result, or NULL when the status is
 * PTX2AMD_ERROR_INVALID_ARGUMENT, PTX2AMD_ERROR_UNKNOWN_TARGET or PTX2AMD_ERROR_OUT_OF_MEMORY.
 * A result also comes with PTX2AMD_ERROR_INVALID_INPUT, PTX2AMD_ERROR_TRANSLATION_FAILED and
 * PTX2AMD_ERROR_INTERNAL, holding the diagnostics. The caller destroys it with
 * ptx2amd_result_destroy(). Identical inputs and options give byte-identical outputs.
 */
PTX2AMD_API ptx2amd_status ptx2amd_translate_ptx(ptx2amd_context *context, const char *ptx,
                                                 size_t size, const char *name,
                                                 const char *target, ptx2amd_result **result);

/**
 * Reads the PTX modules that a binary image holds: a fatbin (one or more containers), a cubin,
 * a host ELF executable, shared library or object built by nvcc, or plain PTX text (one
 * module). \p data (\p size bytes) is copied; \p name names it in diagnostics (NULL: "<image>").
 *
 * \p *image is always written: a new image (destroy it with ptx2amd_image_destroy()), or NULL
 * when the status is PTX2AMD_ERROR_INVALID_ARGUMENT or PTX2AMD_ERROR_OUT_OF_MEMORY. With
 * PTX2AMD_ERROR_INVALID_INPUT (malformed, or no PTX at all) the image holds no modules and
 * ptx2amd_image_diagnostics() says why.
 */
PTX2AMD_API ptx2amd_status ptx2amd_image_open(ptx2amd_context *context, const void *data,
                                              size_t size, const char *name,
                                              ptx2amd_image **image);

/** Destroys an image (NULL is accepted and ignored). */
PTX2AMD_API ptx2amd_status ptx2amd_image_destroy(ptx2amd_image *image);

/** The number of PTX modules in the image, in the order they appear in it. */
PTX2AMD_API ptx2amd_status ptx2amd_image_module_count(const ptx2amd_image *image, size_t *count);

/** PTX module \p index: its text (\p *size bytes, NUL-terminated), its name for diagnostics
 * ("file: container C entry I (offset 0x...)"; may be NULL) and the SM number it was built for
 * (90 for sm_90; 0 for plain PTX text; may be NULL). Owned by the image. */
PTX2AMD_API ptx2amd_status ptx2amd_image_module(const ptx2amd_image *image, size_t index,
                                                const char **ptx, size_t *size,
                                                const char **name, unsigned *sm_arch);

/** Why the image could not be read ("" when it could). Owned by the image. */
PTX2AMD_API ptx2amd_status ptx2amd_image_diagnostics(const ptx2amd_image *image,
                                                     const char **text);

/** ptx2amd_translate_ptx() on module \p index of \p image, named as the image names it. */
PTX2AMD_API ptx2amd_status ptx2amd_translate_image_module(ptx2amd_context *context,
                                                          const ptx2amd_image *image,
                                                          size_t index, const char *target,
                                                          ptx2amd_result **result);

/* ---- Results ----------------------------------------------------------------------------- */

/** Destroys a result and everything it returned (NULL is accepted and ignored). */
PTX2AMD_API ptx2amd_status ptx2amd_result_destroy(ptx2amd_result *result);

/** The status the translation returned. */
PTX2AMD_API ptx2amd_status ptx2amd_result_status(const ptx2amd_result *result,
                                                 ptx2amd_status *status);

/** The target name the result was translated for. */
PTX2AMD_API ptx2amd_status ptx2amd_result_target(const ptx2amd_result *result,
                                                 const char **target);

/** The code object bytes (an ELF shared object for amdgcn-amd-amdhsa), owned by the result.
 * PTX2AMD_ERROR_NOT_AVAILABLE when the translation failed or produced a textual output. */
PTX2AMD_API ptx2amd_status ptx2amd_result_code_object(const ptx2amd_result *result,
                                                      const void **data, size_t *size);

/** The text of a PTX2AMD_OUTPUT_LLVM_IR or PTX2AMD_OUTPUT_ASSEMBLY translation (NUL-terminated;
 * \p size, which may be NULL, excludes the NUL), owned by the result.
 * PTX2AMD_ERROR_NOT_AVAILABLE for code objects and failed translations. */
PTX2AMD_API ptx2amd_status ptx2amd_result_text(const ptx2amd_result *result, const char **text,
                                               size_t *size);

/** Why the translation failed as a whole, in a message without the warnings ("" when it did not
 * fail): for PTX2AMD_ERROR_INVALID_INPUT the located parse errors, otherwise the lowering, code
 * generator or linker message. Owned by the result. */
PTX2AMD_API ptx2amd_status ptx2amd_result_error(const ptx2amd_result *result, const char **text);

/** Every diagnostic of the translation, one per line ("file:line:column: error: in function
 * 'f': message", an indented line with the PTX text where there is one): module warnings,
 * errors, each function that was not translated and why, code generator warnings. "" when there
 * are none. Owned by the result. */
PTX2AMD_API ptx2amd_status ptx2amd_result_diagnostics(const ptx2amd_result *result,
                                                      const char **text);

/** The number of PTX functions (kernels and device functions) that the module defines, in PTX
 * order. 0 when the module could not be read. */
PTX2AMD_API ptx2amd_status ptx2amd_result_function_count(const ptx2amd_result *result,
                                                         size_t *count);

/** Function \p index: its name, whether it is a kernel (.entry), whether it was translated, and
 * if not, why (see ptx2amd_result_function_state(); "" when translated). Any output pointer but
 * \p name may be NULL. Owned by the result. */
PTX2AMD_API ptx2amd_status ptx2amd_result_function(const ptx2amd_result *result, size_t index,
                                                   const char **name, int *is_kernel,
                                                   int *translated, const char **reason);

/** What became of function \p index (see ptx2amd_function_state). ptx2amd_result_function()'s
 * \p translated is 1 exactly for PTX2AMD_FUNCTION_TRANSLATED; its \p reason is the located
 * diagnostics for PTX2AMD_FUNCTION_FAILED, the code generator's reason for
 * PTX2AMD_FUNCTION_LEFT_OUT ("it calls 'f', which is not defined in this module") and the
 * module's error for PTX2AMD_FUNCTION_MODULE_FAILED. */
PTX2AMD_API ptx2amd_status ptx2amd_result_function_state(const ptx2amd_result *result,
                                                         size_t index,
                                                         ptx2amd_function_state *state);

/** The number of kernels (.entry) of the module, translated or not, in PTX order. */
PTX2AMD_API ptx2amd_status ptx2amd_result_kernel_count(const ptx2amd_result *result,
                                                       size_t *count);

/** The index of the kernel called \p name (its PTX name, e.g. a mangled C++ name). */
PTX2AMD_API ptx2amd_status ptx2amd_result_kernel_find(const ptx2amd_result *result,
                                                      const char *name, size_t *index);

/** Kernel \p index's PTX name (also its symbol in the code object; the kernel descriptor is
 * "<name>.kd"). Owned by the result. */
PTX2AMD_API ptx2amd_status ptx2amd_result_kernel_name(const ptx2amd_result *result, size_t index,
                                                      const char **name);

/** Whether kernel \p index was translated (\p *translated = 1; with a code object output, it is
 * then in the code object) or not (0, with \p *reason saying why, as for
 * ptx2amd_result_function()). \p reason may be NULL. Owned by the result. */
PTX2AMD_API ptx2amd_status ptx2amd_result_kernel_translated(const ptx2amd_result *result,
                                                            size_t index, int *translated,
                                                            const char **reason);

/** A metadata value of translated kernel \p index. PTX2AMD_ERROR_NOT_AVAILABLE for a kernel
 * that was not translated or a translation without a code object. */
PTX2AMD_API ptx2amd_status ptx2amd_result_kernel_property(const ptx2amd_result *result,
                                                          size_t index,
                                                          ptx2amd_kernel_property property,
                                                          uint64_t *value);

/** Argument \p arg of translated kernel \p index: its offset and size in the kernarg segment and
 * its kind, the code object's ".value_kind" ("by_value", "global_buffer", or for the hidden
 * arguments that the loader fills: "hidden_block_count_x", "hidden_group_size_x", ...). The
 * first PTX2AMD_KERNEL_EXPLICIT_ARG_COUNT arguments are the PTX parameters at CUDA's offsets.
 * \p kind may be NULL; it is owned by the result. */
PTX2AMD_API ptx2amd_status ptx2amd_result_kernel_arg(const ptx2amd_result *result, size_t index,
                                                     size_t arg, uint64_t *offset, uint64_t *size,
                                                     const char **kind);

#ifdef __cplusplus
}
#endif

#endif /* PTX2AMD_PTX2AMD_H */
