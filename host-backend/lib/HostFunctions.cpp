// Host functions: plain C functions, no AMDGPU calling conventions, processor or features left.
#include "Retargeter.h"

#include "llvm/IR/AttributeMask.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ptx2amd::host {

void makeHostFunctions(Retargeter &R) {
  for (Function &F : R.M) {
    F.setCallingConv(CallingConv::C);
    AttributeList AL = F.getAttributes();
    AttributeMask Remove;
    for (Attribute A : AL.getFnAttrs())
      if (A.isStringAttribute() &&
          (A.getKindAsString().starts_with("amdgpu") || A.getKindAsString() == "target-cpu" ||
           A.getKindAsString() == "target-features" ||
           A.getKindAsString() == "uniform-work-group-size"))
        Remove.addAttribute(A.getKindAsString());
    F.removeFnAttrs(Remove);
    for (unsigned K = 0; K < F.arg_size(); ++K)
      F.removeParamAttr(K, Attribute::ByRef);
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        CB->setCallingConv(CallingConv::C);
  }
}

} // namespace ptx2amd::host
