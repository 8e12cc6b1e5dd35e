//===- DriverGraphs.h - the driver API's graph structures and entry points -*- C++ -*-===//
//
// CUDA 13's layouts of the driver API's graph parameters (cuda.h), under names of our own, and
// the entry points of DriverGraphs.cpp, which cuGetProcAddress's table names.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Driver.h"
#include "Graphs.h"

namespace ptx2amd::runtime {

struct CuKernelNodeParamsV1 {
  KernelRecord *Func;
  unsigned GridX, GridY, GridZ, BlockX, BlockY, BlockZ, SharedBytes;
  void **KernelParams;
  void **Extra;
};
static_assert(sizeof(CuKernelNodeParamsV1) == 56);
/// CUDA_KERNEL_NODE_PARAMS_v2/_v3: v1, then a CUkernel (used when the function is null) and a
/// context.
struct CuKernelNodeParams {
  CuKernelNodeParamsV1 V1;
  KernelRecord *Kernel;
  CUcontext Ctx;
};
static_assert(sizeof(CuKernelNodeParams) == 72);
struct CuNodeParams {
  int Type;
  int Reserved0[3];
  union {
    long long Reserved1[29];
    CuKernelNodeParams Kernel;
    struct {
      int Flags, Reserved;
      CUcontext Ctx;
      CUDA_MEMCPY3D Copy;
    } Memcpy;
    MemsetNodeParams Memset; ///< CUDA_MEMSET_NODE_PARAMS_v2 (and a context after it)
    HostNodeParams Host;
    struct {
      Graph *Child;
      int Ownership;
    } Child;
    cudaEvent_t Event;
    MemAllocNodeParams Alloc;
    struct {
      uint64_t Handle;
      int Type;
      unsigned Size;
      Graph **Bodies; ///< set to the node's body graphs
      void *Ctx;
    } Conditional;
    CUdeviceptr FreePtr;
  };
  long long Reserved2;
};
static_assert(sizeof(CuNodeParams) == 256);

} // namespace ptx2amd::runtime

extern "C" {
CUresult cuGraphCreate(ptx2amd::runtime::Graph **Out, unsigned Flags);
CUresult cuGraphDestroy(ptx2amd::runtime::Graph *G);
CUresult cuGraphClone(ptx2amd::runtime::Graph **Out, ptx2amd::runtime::Graph *G);
CUresult cuGraphNodeFindInClone(ptx2amd::runtime::GraphNode **Out,
                                ptx2amd::runtime::GraphNode *Original,
                                ptx2amd::runtime::Graph *Clone);
CUresult cuGraphDebugDotPrint(ptx2amd::runtime::Graph *G, const char *Path, unsigned Flags);
CUresult cuGraphGetNodes(ptx2amd::runtime::Graph *G, ptx2amd::runtime::GraphNode **Nodes,
                         size_t *Count);
CUresult cuGraphGetRootNodes(ptx2amd::runtime::Graph *G, ptx2amd::runtime::GraphNode **Nodes,
                             size_t *Count);
CUresult cuGraphGetEdges(ptx2amd::runtime::Graph *G, ptx2amd::runtime::GraphNode **From,
                         ptx2amd::runtime::GraphNode **To, size_t *Count);
CUresult cuGraphGetEdges_v2(ptx2amd::runtime::Graph *G, ptx2amd::runtime::GraphNode **From,
                            ptx2amd::runtime::GraphNode **To, void *EdgeData, size_t *Count);
CUresult cuGraphNodeGetDependencies(ptx2amd::runtime::GraphNode *N,
                                    ptx2amd::runtime::GraphNode **Deps, size_t *Count);
CUresult cuGraphNodeGetDependencies_v2(ptx2amd::runtime::GraphNode *N,
                                       ptx2amd::runtime::GraphNode **Deps, void *EdgeData,
                                       size_t *Count);
CUresult cuGraphNodeGetDependentNodes(ptx2amd::runtime::GraphNode *N,
                                      ptx2amd::runtime::GraphNode **Deps, size_t *Count);
CUresult cuGraphNodeGetDependentNodes_v2(ptx2amd::runtime::GraphNode *N,
                                         ptx2amd::runtime::GraphNode **Deps, void *EdgeData,
                                         size_t *Count);
CUresult cuGraphAddDependencies(ptx2amd::runtime::Graph *G,
                                ptx2amd::runtime::GraphNode *const *From,
                                ptx2amd::runtime::GraphNode *const *To, size_t Count);
CUresult cuGraphAddDependencies_v2(ptx2amd::runtime::Graph *G,
                                   ptx2amd::runtime::GraphNode *const *From,
                                   ptx2amd::runtime::GraphNode *const *To, const void *EdgeData,
                                   size_t Count);
CUresult cuGraphRemoveDependencies(ptx2amd::runtime::Graph *G,
                                   ptx2amd::runtime::GraphNode *const *From,
                                   ptx2amd::runtime::GraphNode *const *To, size_t Count);
CUresult cuGraphRemoveDependencies_v2(ptx2amd::runtime::Graph *G,
                                      ptx2amd::runtime::GraphNode *const *From,
                                      ptx2amd::runtime::GraphNode *const *To, const void *EdgeData,
                                      size_t Count);
CUresult cuGraphDestroyNode(ptx2amd::runtime::GraphNode *N);
CUresult cuGraphNodeGetType(ptx2amd::runtime::GraphNode *N, int *Type);
CUresult cuGraphAddKernelNode(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                              ptx2amd::runtime::GraphNode *const *Deps, size_t NumDeps,
                              const ptx2amd::runtime::CuKernelNodeParamsV1 *P);
CUresult cuGraphAddKernelNode_v2(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                                 ptx2amd::runtime::GraphNode *const *Deps, size_t NumDeps,
                                 const ptx2amd::runtime::CuKernelNodeParams *P);
CUresult cuGraphAddMemcpyNode(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                              ptx2amd::runtime::GraphNode *const *Deps, size_t NumDeps,
                              const CUDA_MEMCPY3D *P, CUcontext);
CUresult cuGraphAddMemsetNode(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                              ptx2amd::runtime::GraphNode *const *Deps, size_t NumDeps,
                              const ptx2amd::runtime::MemsetNodeParams *P, CUcontext);
CUresult cuGraphAddHostNode(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                            ptx2amd::runtime::GraphNode *const *Deps, size_t NumDeps,
                            const ptx2amd::runtime::HostNodeParams *P);
CUresult cuGraphAddChildGraphNode(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                                  ptx2amd::runtime::GraphNode *const *Deps, size_t NumDeps,
                                  ptx2amd::runtime::Graph *Child);
CUresult cuGraphAddEmptyNode(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                             ptx2amd::runtime::GraphNode *const *Deps, size_t NumDeps);
CUresult cuGraphAddEventRecordNode(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                                   ptx2amd::runtime::GraphNode *const *Deps, size_t NumDeps,
                                   cudaEvent_t Event);
CUresult cuGraphAddEventWaitNode(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                                 ptx2amd::runtime::GraphNode *const *Deps, size_t NumDeps,
                                 cudaEvent_t Event);
CUresult cuGraphAddMemAllocNode(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                                ptx2amd::runtime::GraphNode *const *Deps, size_t NumDeps,
                                ptx2amd::runtime::MemAllocNodeParams *P);
CUresult cuGraphAddMemFreeNode(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                               ptx2amd::runtime::GraphNode *const *Deps, size_t NumDeps,
                               CUdeviceptr Ptr);
CUresult cuGraphAddNode(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                        ptx2amd::runtime::GraphNode *const *Deps, size_t NumDeps,
                        ptx2amd::runtime::CuNodeParams *P);
CUresult cuGraphAddNode_v2(ptx2amd::runtime::GraphNode **Out, ptx2amd::runtime::Graph *G,
                           ptx2amd::runtime::GraphNode *const *Deps, const void *EdgeData,
                           size_t NumDeps, ptx2amd::runtime::CuNodeParams *P);
CUresult cuGraphKernelNodeGetParams(ptx2amd::runtime::GraphNode *Node,
                                    ptx2amd::runtime::CuKernelNodeParamsV1 *P);
CUresult cuGraphKernelNodeGetParams_v2(ptx2amd::runtime::GraphNode *Node,
                                       ptx2amd::runtime::CuKernelNodeParams *P);
CUresult cuGraphKernelNodeSetParams(ptx2amd::runtime::GraphNode *Node,
                                    const ptx2amd::runtime::CuKernelNodeParamsV1 *P);
CUresult cuGraphKernelNodeSetParams_v2(ptx2amd::runtime::GraphNode *Node,
                                       const ptx2amd::runtime::CuKernelNodeParams *P);
CUresult cuGraphKernelNodeCopyAttributes(ptx2amd::runtime::GraphNode *Dst,
                                         ptx2amd::runtime::GraphNode *Src);
CUresult cuGraphKernelNodeGetAttribute(ptx2amd::runtime::GraphNode *Node, int Id, void *Value);
CUresult cuGraphKernelNodeSetAttribute(ptx2amd::runtime::GraphNode *Node, int Id,
                                       const void *Value);
CUresult cuGraphMemcpyNodeGetParams(ptx2amd::runtime::GraphNode *Node, CUDA_MEMCPY3D *P);
CUresult cuGraphMemcpyNodeSetParams(ptx2amd::runtime::GraphNode *Node, const CUDA_MEMCPY3D *P);
CUresult cuGraphMemsetNodeGetParams(ptx2amd::runtime::GraphNode *Node,
                                    ptx2amd::runtime::MemsetNodeParams *P);
CUresult cuGraphMemsetNodeSetParams(ptx2amd::runtime::GraphNode *Node,
                                    const ptx2amd::runtime::MemsetNodeParams *P);
CUresult cuGraphHostNodeGetParams(ptx2amd::runtime::GraphNode *Node,
                                  ptx2amd::runtime::HostNodeParams *P);
CUresult cuGraphHostNodeSetParams(ptx2amd::runtime::GraphNode *Node,
                                  const ptx2amd::runtime::HostNodeParams *P);
CUresult cuGraphChildGraphNodeGetGraph(ptx2amd::runtime::GraphNode *Node,
                                       ptx2amd::runtime::Graph **Out);
CUresult cuGraphEventRecordNodeGetEvent(ptx2amd::runtime::GraphNode *Node, cudaEvent_t *Out);
CUresult cuGraphEventRecordNodeSetEvent(ptx2amd::runtime::GraphNode *Node, cudaEvent_t Event);
CUresult cuGraphEventWaitNodeGetEvent(ptx2amd::runtime::GraphNode *Node, cudaEvent_t *Out);
CUresult cuGraphEventWaitNodeSetEvent(ptx2amd::runtime::GraphNode *Node, cudaEvent_t Event);
CUresult cuGraphMemAllocNodeGetParams(ptx2amd::runtime::GraphNode *Node,
                                      ptx2amd::runtime::MemAllocNodeParams *P);
CUresult cuGraphMemFreeNodeGetParams(ptx2amd::runtime::GraphNode *Node, CUdeviceptr *Out);
CUresult cuGraphNodeSetParams(ptx2amd::runtime::GraphNode *Node, ptx2amd::runtime::CuNodeParams *P);
CUresult cuGraphInstantiate(ptx2amd::runtime::GraphExec **Out, ptx2amd::runtime::Graph *G,
                            ptx2amd::runtime::GraphNode **ErrorNode, char *Log, size_t LogSize);
CUresult cuGraphInstantiate_v2(ptx2amd::runtime::GraphExec **Out, ptx2amd::runtime::Graph *G,
                               ptx2amd::runtime::GraphNode **ErrorNode, char *Log, size_t LogSize);
CUresult cuGraphInstantiateWithFlags(ptx2amd::runtime::GraphExec **Out, ptx2amd::runtime::Graph *G,
                                     unsigned long long Flags);
CUresult cuGraphInstantiateWithParams(ptx2amd::runtime::GraphExec **Out, ptx2amd::runtime::Graph *G,
                                      ptx2amd::runtime::InstantiateParams *P);
CUresult cuGraphExecGetFlags(ptx2amd::runtime::GraphExec *X, unsigned long long *Flags);
CUresult cuGraphExecKernelNodeSetParams(ptx2amd::runtime::GraphExec *X,
                                        ptx2amd::runtime::GraphNode *Node,
                                        const ptx2amd::runtime::CuKernelNodeParamsV1 *P);
CUresult cuGraphExecKernelNodeSetParams_v2(ptx2amd::runtime::GraphExec *X,
                                           ptx2amd::runtime::GraphNode *Node,
                                           const ptx2amd::runtime::CuKernelNodeParams *P);
CUresult cuGraphExecMemcpyNodeSetParams(ptx2amd::runtime::GraphExec *X,
                                        ptx2amd::runtime::GraphNode *Node, const CUDA_MEMCPY3D *P,
                                        CUcontext);
CUresult cuGraphExecMemsetNodeSetParams(ptx2amd::runtime::GraphExec *X,
                                        ptx2amd::runtime::GraphNode *Node,
                                        const ptx2amd::runtime::MemsetNodeParams *P, CUcontext);
CUresult cuGraphExecHostNodeSetParams(ptx2amd::runtime::GraphExec *X,
                                      ptx2amd::runtime::GraphNode *Node,
                                      const ptx2amd::runtime::HostNodeParams *P);
CUresult cuGraphExecChildGraphNodeSetParams(ptx2amd::runtime::GraphExec *X,
                                            ptx2amd::runtime::GraphNode *Node,
                                            ptx2amd::runtime::Graph *Child);
CUresult cuGraphExecEventRecordNodeSetEvent(ptx2amd::runtime::GraphExec *X,
                                            ptx2amd::runtime::GraphNode *Node, cudaEvent_t Event);
CUresult cuGraphExecEventWaitNodeSetEvent(ptx2amd::runtime::GraphExec *X,
                                          ptx2amd::runtime::GraphNode *Node, cudaEvent_t Event);
CUresult cuGraphExecNodeSetParams(ptx2amd::runtime::GraphExec *X, ptx2amd::runtime::GraphNode *Node,
                                  ptx2amd::runtime::CuNodeParams *P);
CUresult cuGraphNodeSetEnabled(ptx2amd::runtime::GraphExec *X, ptx2amd::runtime::GraphNode *Node,
                               unsigned Enabled);
CUresult cuGraphNodeGetEnabled(ptx2amd::runtime::GraphExec *X, ptx2amd::runtime::GraphNode *Node,
                               unsigned *Enabled);
CUresult cuGraphExecUpdate(ptx2amd::runtime::GraphExec *X, ptx2amd::runtime::Graph *G,
                           ptx2amd::runtime::GraphNode **ErrorNode, int *Result);
CUresult cuGraphExecUpdate_v2(ptx2amd::runtime::GraphExec *X, ptx2amd::runtime::Graph *G,
                              ptx2amd::runtime::ExecUpdateResultInfo *Info);
CUresult cuGraphUpload(ptx2amd::runtime::GraphExec *X, CUstream S);
CUresult cuGraphLaunch(ptx2amd::runtime::GraphExec *X, CUstream S);
CUresult cuGraphExecDestroy(ptx2amd::runtime::GraphExec *X);
CUresult cuDeviceGraphMemTrim(CUdevice Device);
CUresult cuDeviceGetGraphMemAttribute(CUdevice Device, int Attribute, void *Value);
CUresult cuDeviceSetGraphMemAttribute(CUdevice Device, int Attribute, void *Value);
CUresult cuUserObjectCreate(ptx2amd::runtime::UserObject **Out, void *Ptr, void (*Destroy)(void *),
                            unsigned InitialCount, unsigned Flags);
CUresult cuUserObjectRetain(ptx2amd::runtime::UserObject *O, unsigned Count);
CUresult cuUserObjectRelease(ptx2amd::runtime::UserObject *O, unsigned Count);
CUresult cuGraphRetainUserObject(ptx2amd::runtime::Graph *G, ptx2amd::runtime::UserObject *O,
                                 unsigned Count, unsigned Flags);
CUresult cuGraphReleaseUserObject(ptx2amd::runtime::Graph *G, ptx2amd::runtime::UserObject *O,
                                  unsigned Count);
CUresult cuStreamBeginCapture(CUstream S);
CUresult cuStreamBeginCapture_v2(CUstream S, int Mode);
CUresult cuStreamBeginCaptureToGraph(CUstream S, ptx2amd::runtime::Graph *G,
                                     ptx2amd::runtime::GraphNode *const *Deps, const void *EdgeData,
                                     size_t NumDeps, int Mode);
CUresult cuStreamEndCapture(CUstream S, ptx2amd::runtime::Graph **Out);
CUresult cuStreamUpdateCaptureDependencies(CUstream S, ptx2amd::runtime::GraphNode *const *Deps,
                                           size_t NumDeps, unsigned Flags);
CUresult cuStreamUpdateCaptureDependencies_v2(CUstream S, ptx2amd::runtime::GraphNode *const *Deps,
                                              const void *EdgeData, size_t NumDeps, unsigned Flags);
CUresult cuGraphConditionalHandleCreate(uint64_t *Out, ptx2amd::runtime::Graph *G, CUcontext,
                                        unsigned Default, unsigned Flags);
} // extern "C"
