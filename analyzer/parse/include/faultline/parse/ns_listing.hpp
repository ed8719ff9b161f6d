// A directory listing typed through a container runtime in a pasted session (issue 33: "a
// transcript that lists a directory with and without the bind"): `docker exec mindie ls -la
// /usr/local/Ascend/ascend-toolkit`, `docker run --rm -v /data/empty:/usr/local/Ascend/
// ascend-toolkit IMAGE ls …`, `kubectl exec POD -- ls …`, `singularity exec IMAGE ls …`. The
// listing describes another mount namespace than the host's, so its facts are named under
// `ns.<scope>.` (docs/facts.md "Listings inside a container"):
//   - `ns.container.`: inside a container with its mounts (`exec` into a running one, or a `run`
//     whose binds cover the listed directory);
//   - `ns.image.`: a fresh container of the image with no bind over the directory (what the
//     image ships there, what a bind would hide).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "faultline/parse/parser.hpp"

namespace faultline::parse {

struct NsListing {
  std::string scope;  // "container" | "image"
  std::string inner;  // the listing command run inside (`ls -la /usr/local/Ascend/…`)
};

// The listing a container command runs, when `title` is one (docker/podman/nerdctl run|exec,
// kubectl exec … --, crictl exec, singularity/apptainer exec, with `sh -c '…'` unwrapped);
// nullopt for anything else.
std::optional<NsListing> namespaced_listing(std::string_view title);

// A parser that forwards to `inner` and renames every fact it states to `prefix + name`.
std::unique_ptr<Parser> prefixed_parser(std::unique_ptr<Parser> inner, std::string prefix);

}  // namespace faultline::parse
