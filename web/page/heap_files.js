// Model files placed once in the engine module's own memory (its heap), for engine_worker.js.
// Each file's bytes are read from the reader's disk (a File) or the page's host (the bundled
// model, fetched as a Blob) straight into a block the module allocated, in slices, so no whole
// copy is held anywhere else. The engine serves those bytes to its loaders in place of mapping
// the file (engine/io/memory_files.h, given them by holdFile); a small read-only file system
// (HEAPFS below, mounted at the files' folder) lets the engine's other reads (a header, a
// folder's listing, the tokenizer) find the same bytes by path.
'use strict';

// Slices read from a Blob at a time: what is held outside the heap while a file is read.
const HEAP_FILE_SLICE = 64 * 1024 ** 2;

// The module's memory as it is now: in the threaded build another thread may have grown it since
// this thread's own view was made, so the view comes from the memory itself.
function heapBytes(Module) {
  return Module.wasmMemory ? new Uint8Array(Module.wasmMemory.buffer) : Module.HEAPU8;
}

// A read-only file system of byte ranges of the heap, built from the files given when it is
// mounted (as Emscripten's WORKERFS is from Blobs); unmounting it removes them.
function heapFileSystem(Module) {
  const FS = Module.FS;
  const ENOENT = 44, EINVAL = 28;  // Emscripten's (WASI's) numbers
  const stat = node => {
    const when = new Date(node.timestamp);
    return { dev: 1, ino: node.id, mode: node.mode, nlink: 1, uid: 0, gid: 0, rdev: 0, size: node.size || 0,
             atime: when, mtime: when, ctime: when, blksize: 4096, blocks: Math.ceil((node.size || 0) / 4096) };
  };
  const dirOps = {
    getattr: stat,
    lookup: () => { throw new FS.ErrnoError(ENOENT); },
    readdir: node => ['.', '..', ...Object.keys(node.contents)],
  };
  const fileOps = { getattr: stat };
  const fileStream = {
    read: (stream, buffer, offset, length, position) => {
      const node = stream.node, n = Math.max(0, Math.min(length, node.size - position));
      buffer.set(heapBytes(Module).subarray(node.ptr + position, node.ptr + position + n), offset);
      return n;
    },
    llseek: (stream, offset, whence) => {
      const position = offset + (whence === 1 ? stream.position : whence === 2 ? stream.node.size : 0);
      if (position < 0) throw new FS.ErrnoError(EINVAL);
      return position;
    },
  };
  const node = (parent, name, mode, mount) => {
    const n = FS.createNode(parent, name, mode, 0);
    if (mount) n.mount = mount;  // before its files are made, so that unmounting finds them
    n.timestamp = Date.now();
    if (FS.isDir(mode)) { n.node_ops = dirOps; n.stream_ops = {}; n.contents = {}; }
    else { n.node_ops = fileOps; n.stream_ops = fileStream; }
    if (parent) parent.contents[name] = n;
    return n;
  };
  return {
    mount: mount => {
      const root = node(null, '/', 0o40555, mount);
      for (const f of mount.opts.files) Object.assign(node(root, f.name, 0o100444), { ptr: f.ptr, size: f.size });
      return root;
    },
  };
}

// Reads `files` ({name, blob}) into the heap and makes them the folder `dir` (created), held by
// the engine as its files. Throws, holding nothing, if the module cannot allocate a file's block.
async function mountHeapFiles(Module, dir, files) {
  Module.heapFS = Module.heapFS || heapFileSystem(Module);
  const held = [];
  try {
    for (const { name, blob } of files) {
      // Unsigned: an address past 2 GB is a negative 32-bit number.
      const ptr = Module.allocateFile(blob.size) >>> 0;
      if (!ptr) throw new Error(`the engine's memory could not hold ${name} (${(blob.size / 1e9).toFixed(2)} GB) as one block`);
      Module.holdFile(dir + '/' + name, ptr, blob.size);  // the engine frees it once nothing uses it
      held.push({ name, ptr, size: blob.size });
      for (let at = 0; at < blob.size; at += HEAP_FILE_SLICE)
        heapBytes(Module).set(new Uint8Array(await blob.slice(at, at + HEAP_FILE_SLICE).arrayBuffer()), ptr + at);
    }
  } catch (e) {
    for (const f of held) Module.releaseFile(dir + '/' + f.name);
    throw e;
  }
  Module.FS.mkdirTree(dir);
  Module.FS.mount(Module.heapFS, { files: held }, dir);
  return held.reduce((sum, f) => sum + f.size, 0);
}

// The folder's files let go: their bytes are freed once the engine's model of them is gone.
function unmountHeapFiles(Module, dir) {
  for (const name of Module.FS.readdir(dir)) if (name !== '.' && name !== '..') Module.releaseFile(dir + '/' + name);
  Module.FS.unmount(dir);
  Module.FS.rmdir(dir);
}
