// Where a bundle member lives on the host it was collected from (docs/facts.md "Symlink
// members"): the member path inside its innermost archive, from its first component that is a
// root directory of a Linux file system (lib, usr, etc, opt, var, dev, ...).
//   "node1.tar.gz!/case/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko"
//     -> "/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko"
//   "collect/drv_pcie_host.ko" -> "collect/drv_pcie_host.ko" (relative: no root directory named)
#pragma once

#include <string>
#include <string_view>

namespace faultline::parse {

std::string host_path_of_member(std::string_view member_path);

}  // namespace faultline::parse
