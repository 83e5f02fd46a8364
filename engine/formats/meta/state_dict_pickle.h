#pragma once
// The data.pkl of torch.save({name: tensor, ...}): what pickle.h reads, written the way
// PyTorch 1.13's pickler writes it (protocol 2, the same memo puts and gets), so that our
// archive is byte for byte torch's. Each tensor is
//   torch._utils._rebuild_tensor_v2(persistent_load(('storage', torch.FloatStorage or
//       torch.BFloat16Storage, key, 'cpu', numel)), 0, size, stride, False, OrderedDict())
// with its own storage, keys "0", "1", ... in order, row-major strides.
#include <string>
#include <vector>

#include "formats/named_tensor.h"

namespace llama {

// The tensors' dtypes must be F32 or BF16 (std::invalid_argument naming the tensor otherwise).
std::string pickleStateDict(const std::vector<NamedTensor>& tensors);

}  // namespace llama
