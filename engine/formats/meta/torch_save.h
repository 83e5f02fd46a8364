#pragma once
// Writes a state dict as torch.save({name: tensor, ...}, path) of PyTorch 1.13 does, byte for byte
// (checked against torch itself by tests/torch_save_python_test.sh): a zip archive
// (zip_writer.h) whose entries, in torch's order, are
//   <folder>/data.pkl    the dict, naming each tensor's storage (state_dict_pickle.h)
//   <folder>/data/<key>  each storage's raw little-endian bytes, at a 64-byte-aligned offset (keys
//                        "0", "1", ... in the dict's order; entries sorted as strings, as torch does)
//   <folder>/version     "3\n", the archive format version torch 1.13 writes and still reads
// where <folder> is the file's name without its last extension ("consolidated.00" for
// consolidated.00.pth), as torch names it. torch.load gives back a plain dict of tensors, and
// TorchCheckpoint::load (torch_checkpoint.h) views them in place.
#include <string>
#include <vector>

#include "formats/named_tensor.h"

namespace llama {

// Every tensor is stored as `dtype` (F32 or BF16): one of another dtype (a quantized weight, say)
// is converted when its turn comes, so that at most one converted copy is in memory. Tensors must
// be row-major with data. The file is written atomically (io/atomic_output.h); errors name it and
// the tensor.
void writeTorchSave(const std::string& path, const std::vector<NamedTensor>& tensors, DType dtype);

}  // namespace llama
