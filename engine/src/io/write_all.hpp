// SPDX-License-Identifier: MIT
// Writing a whole buffer to a file descriptor: the one loop (short writes, EINTR) that the atomic
// writer and the output directory's staged writes share.
#pragma once

#include <string_view>

namespace zf::io {

/// Writes all of `content` to `fd`, retrying short writes and EINTR; false (errno set) on any
/// other failure. Does not close `fd`.
bool write_all(int fd, std::string_view content);

}  // namespace zf::io
