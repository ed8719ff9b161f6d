// Fact shapes (rules/facts, issue 33): every shape's own examples hold, the lint catches broken
// shapes, members of the new kinds are classified and parsed end to end (C++ parser and shapes
// side by side), and hostile documents stay bounded. Lines: Docker/Kubernetes/systemd/Apptainer
// reference formats, cri-tools and cri-o issue threads (crictl inspect), procps ps(1), find(1),
// stat(1), autofs(5), dpkg status.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "faultline/classify/classify.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/core/text.hpp"
#include "faultline/parse/composite.hpp"
#include "faultline/parse/fact_shapes.hpp"
#include "faultline/parse/ns_listing.hpp"
#include "test_outputs_util.hpp"

using namespace faultline;
using fltest::has;
using fltest::run;

namespace {
const classify::Classifier& cls() {
  static const classify::Classifier c(rules_under(embedded_rules(), "classify/"));
  return c;
}
std::string kind_of(std::string_view path, std::string_view head) {
  return cls().classify(path, head).kind;
}
}  // namespace

TEST_CASE("fact shapes: every shape's examples hold and the rules lint clean", "[parse][shapes]") {
  const auto problems = parse::check_fact_shapes(embedded_rules());
  for (const auto& p : problems) UNSCOPED_INFO(p);
  CHECK(problems.empty());
  const auto kinds = parse::fact_shape_kinds();
  for (const char* k : {"dockerfile", "container_inspect", "ps_list", "dpkg_status", "env_file",
                        "stat", "autofs_map", "version_banner", "pip_dist_info", "launch_spec"})
    CHECK(std::find(kinds.begin(), kinds.end(), k) != kinds.end());
}

TEST_CASE("fact shapes: the lint names broken shapes and failing examples", "[parse][shapes]") {
  const std::vector<RuleFile> bad = {{"facts/bad.yaml", R"Y(
family: bad
shapes:
  - id: bad.pattern
    kinds: [dockerfile]
    line: '^ENV (?<name'
    facts: [{name: 'x.{name}', value: v}]
  - id: bad.template
    kinds: [dockerfile]
    line: '^ENV (?<name>\w+)=(?<value>\S+)$'
    facts: [{name: 'image.{nmae}', value: '{value}'}]
    examples:
      match: [{text: 'ENV A=1', facts: {image.A: '1'}}]
      no_match: ['RUN true']
  - id: bad.example
    kinds: [dockerfile]
    line: '^ENV (?<name>\w+)=(?<value>\S+)$'
    facts: [{name: 'image.{name}', value: '{value}'}]
    examples:
      match: [{text: 'ENV A=1', facts: {image.A: '2'}}]
      no_match: ['ENV B=3']
)Y"}};
  const auto problems = parse::check_fact_shapes(bad);
  std::string all;
  for (const auto& p : problems) all += p + "\n";
  INFO(all);
  CHECK(all.find("bad.pattern: bad pattern") != std::string::npos);
  CHECK(all.find("bad.template: template names unknown 'nmae'") != std::string::npos);
  CHECK(all.find("bad.example: example does not state image.A = 2 (got: image.A=1;)") !=
        std::string::npos);
  CHECK(all.find("bad.example: no_match example states image.B = 3") != std::string::npos);
}

TEST_CASE("fact shapes: members of the new kinds are classified", "[parse][shapes][classify]") {
  CHECK(kind_of("images/mindie/Dockerfile",
                "FROM swr.cn-south-1.myhuaweicloud.com/ascendhub/ascend-pytorch:24.0.0-A2\nENV "
                "A=1\n") == "dockerfile");
  CHECK(kind_of("build/train.dockerfile", "ARG BASE\nFROM ${BASE} AS build\n") == "dockerfile");
  CHECK(kind_of("node01/docker_inspect_mindie.json",
                "[\n    {\n        \"Id\": "
                "\"6d1ad3e1c2f4b7a3c0e9d5f8a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e\",\n") ==
        "container_inspect");
  CHECK(
      kind_of("ps_-ef.txt",
              "UID          PID    PPID  C STIME TTY          TIME CMD\nroot           1       0  "
              "0 Mar05 ?        00:00:12 /usr/lib/systemd/systemd\n") == "ps_list");
  CHECK(kind_of("session/ps_auxe",
                "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   "
                "TIME COMMAND\n") == "ps_list");
  CHECK(kind_of("var/lib/dpkg/status", "Package: adduser\nStatus: install ok installed\n") ==
        "dpkg_status");
  CHECK(kind_of("etc/default/mindie",
                "ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1\n") == "env_file");
  CHECK(kind_of("deploy/ascend.env", "ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1\n") ==
        "env_file");
  CHECK(kind_of("k8s/configmap-ascend-env.yaml", "apiVersion: v1\nkind: ConfigMap\n") ==
        "launch_spec");
  CHECK(kind_of("etc/auto.direct", "/usr/local/Ascend  -fstype=nfs,ro  nas01:/export/Ascend\n") ==
        "autofs_map");
  CHECK(kind_of("site-packages/torch_npu-2.1.0.post8.dist-info/RECORD",
                "torch_npu/__init__.py,sha256=x,10\n") == "pip_dist_info");
  CHECK(kind_of("stat_drv_pcie_host.txt", "  File: /lib/modules/x.ko -> /opt/x.ko\n") == "stat");
  // issue 33 round 3: a program's own version report; a model's config.json is not a run's
  // configuration (config_dump), whatever its name
  CHECK(kind_of("node02/collect_env.txt",
                "PyTorch version: 2.8.0+cpu\nIs debug build: False\n\nVersions of relevant "
                "libraries:\n[pip3] torch_npu==2.8.0\n") == "env_report");
  CHECK(kind_of("llamafactory_env.txt",
                "- `llamafactory` version: 0.8.2.dev0\n- Python version: 3.10.14\n- PyTorch "
                "version: 2.1.0 (NPU)\n- CANN version: 8.0.RC2.alpha001\n") == "env_report");
  CHECK(kind_of("models/Qwen2.5-7B-Instruct/config.json",
                "{\n  \"architectures\": [\n    \"Qwen2ForCausalLM\"\n  ],\n  "
                "\"attention_dropout\": 0.0,\n  \"use_cache\": true\n}\n") == "model_config");
  CHECK(kind_of("output/r50_amp_off/config.json",
                "{\n  \"cfg\": \"configs/r50.yaml\",\n  \"amp\": true\n}\n") == "config_dump");
  CHECK(kind_of("mount.txt",
                "/dev/mapper/openeuler-root on / type ext4 (rw,relatime)\nnas01:/export/x on "
                "/usr/local/Ascend/ascend-toolkit type nfs4 (ro,relatime,vers=4.1)\n") ==
        "mountinfo");
  // look-alikes stay what they were
  CHECK(kind_of("printenv.txt", "ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1\n") ==
        "environ");
  CHECK(kind_of("logs/train.log", "2026-02-26 21:14:09 FROM the top\n") != "dockerfile");
}

TEST_CASE("fact shapes: end to end beside the C++ parsers", "[parse][shapes]") {
  SECTION("a Pod and the ConfigMap it pulls in with envFrom, in one kubectl dump") {
    const auto r = run("launch_spec",
                       "apiVersion: v1\n"
                       "kind: Pod\n"
                       "metadata:\n"
                       "  name: mindie-0\n"
                       "spec:\n"
                       "  containers:\n"
                       "  - name: server\n"
                       "    image: mindie:2.0\n"
                       "    envFrom:\n"
                       "    - configMapRef:\n"
                       "        name: ascend-env\n"
                       "    env:\n"
                       "    - name: ASCEND_RT_VISIBLE_DEVICES\n"
                       "      value: \"0,1\"\n"
                       "---\n"
                       "apiVersion: v1\n"
                       "kind: ConfigMap\n"
                       "metadata:\n"
                       "  name: ascend-env\n"
                       "data:\n"
                       "  ASCEND_HOME_PATH: /usr/local/Ascend/ascend-toolkit/8.5.1\n",
                       "k8s/mindie.yaml");
    CHECK(has(r, "container.mindie-0/server.env.ASCEND_RT_VISIBLE_DEVICES", "0,1"));  // C++
    CHECK(has(r, "configmap.ascend-env.env.ASCEND_HOME_PATH",
              "/usr/local/Ascend/ascend-toolkit/8.5.1"));  // shape
    CHECK(fltest::line_of(r, "configmap.ascend-env.env.ASCEND_HOME_PATH",
                          "/usr/local/Ascend/ascend-toolkit/8.5.1") == 21);
  }
  SECTION("a systemd unit's LimitAS beside its Environment") {
    const auto r = run("launch_spec",
                       "# /etc/systemd/system/mindie.service\n[Service]\n"
                       "Environment=ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.0\n"
                       "LimitAS=16G\n",
                       "systemctl_cat_mindie");
    CHECK(has(r, "unit.mindie.service.env.ASCEND_HOME_PATH",
              "/usr/local/Ascend/ascend-toolkit/8.5.0"));
    CHECK(has(r, "unit.mindie.service.limit_as", "16G"));
    CHECK(has(r, "unit.systemctl_cat_mindie.limit_as_kib", "16777216"));
  }
  SECTION("a Dockerfile with a continued ENV and a source line") {
    const auto r = run("dockerfile",
                       "FROM ascendhub/ascend-pytorch:24.0.0-A2\n"
                       "ENV ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1 \\\n"
                       "    # the toolkit's libraries\n"
                       "    LD_LIBRARY_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1/lib64\n"
                       "ENV ASCEND_OPP_PATH /usr/local/Ascend/ascend-toolkit/8.5.1/opp\n"
                       "RUN . /usr/local/Ascend/ascend-toolkit/set_env.sh && python3 -c 'import "
                       "torch_npu'\n",
                       "Dockerfile");
    CHECK(fltest::line_of(r, "image.Dockerfile.env.LD_LIBRARY_PATH",
                          "/usr/local/Ascend/ascend-toolkit/8.5.1/lib64") == 2);
    CHECK(
        has(r, "image.Dockerfile.env.ASCEND_HOME_PATH", "/usr/local/Ascend/ascend-toolkit/8.5.1"));
    CHECK(has(r, "image.Dockerfile.env.ASCEND_OPP_PATH",
              "/usr/local/Ascend/ascend-toolkit/8.5.1/opp"));
    CHECK(has(r, "image.Dockerfile.source", "/usr/local/Ascend/ascend-toolkit/set_env.sh"));
  }
  SECTION("SINGULARITY_BIND in a printenv keeps the env facts") {
    const auto r = run("environ", "SINGULARITY_BIND=/data/Ascend:/usr/local/Ascend\nHOME=/root\n",
                       "printenv.txt");
    CHECK(has(r, "env.SINGULARITY_BIND", "/data/Ascend:/usr/local/Ascend"));
    CHECK(has(r, "mount./usr/local/Ascend",
              "root=/data/Ascend source=bind fstype=bind opts=rw scope=container.printenv"));
  }
}

TEST_CASE("fact shapes: hostile documents stay bounded", "[parse][shapes][robust]") {
  std::string deep(100000, '[');
  deep += "\"Id\"";
  auto r = run("container_inspect", deep, "docker_inspect_x.json");
  CHECK(r.facts.empty());
  r = run("container_inspect", "[{\"Name\": \"/a\", \"Config\": {\"Env\": [\"A=1\", \"unterminated",
          "docker_inspect_x.json");
  CHECK(has(r, "container.a.env.A", "1"));
  std::string yaml = "kind: ConfigMap\ndata:\n";
  for (int i = 0; i < 200; ++i) yaml += std::string(static_cast<size_t>(i) * 2, ' ') + "- a:\n";
  r = run("launch_spec", yaml, "configmap.yaml");
  CHECK(r.facts.empty());
  r = run("ps_list", std::string(200000, 'x') + " 1 2 3\n", "ps.txt");
  CHECK(r.facts.empty());
}

namespace {
class Facts final : public parse::Sink {
 public:
  void event(const Event&) override {}
  void fact(const Fact& f) override { facts.push_back(f); }
  std::vector<Fact> facts;
};
}  // namespace

TEST_CASE("fact shapes: a docker run typed in a pasted session states its binds",
          "[parse][shapes][composite]") {
  parse::CompositeParser p(cls(), "case/session.txt");
  Facts sink;
  const std::string text =
      "[root@ai-train-07 ~]# docker run -it --rm -v /data/ascend/ascend-toolkit:/usr/local/Ascend/"
      "ascend-toolkit -v /usr/local/Ascend/driver:/usr/local/Ascend/driver:ro mindie:2.0 bash -l\n"
      "-bash: /usr/local/Ascend/ascend-toolkit/set_env.sh: No such file or directory\n"
      "[root@ai-train-07 ~]# uname -r\n5.15.0-91-generic\n";
  uint32_t n = 0;
  for (auto l : text::split(text, '\n')) p.line(l, parse::LineCtx{++n, 0}, sink);
  p.finish(sink);
  bool shadow = false, driver = false;
  for (const auto& f : sink.facts) {
    if (f.name == "mount./usr/local/Ascend/ascend-toolkit" &&
        f.value.rfind("root=/data/ascend/ascend-toolkit source=bind fstype=bind opts=rw", 0) == 0)
      shadow = f.line == 1;
    if (f.name == "mount./usr/local/Ascend/driver" && f.value.find("opts=ro") != std::string::npos)
      driver = true;
  }
  CHECK(shadow);
  CHECK(driver);
}

// Issue 33 round 3: a session listing the toolkit on the host, inside a running container and in
// a fresh container of the image without the bind (seed 002 §2): each listing is named after the
// mount namespace it describes (`ns.container.`, `ns.image.`; the host's stays unprefixed).
TEST_CASE("premises: listings typed through a container runtime are named by namespace",
          "[parse][composite][premises]") {
  parse::CompositeParser p(cls(), "case/session.txt");
  Facts sink;
  const std::string tk = "/usr/local/Ascend/ascend-toolkit";
  const std::string text =
      "[root@a2-031 ~]# ls -la " + tk +
      "\ntotal 12\n-rwxr-xr-x 1 root root 612 Nov 18 15:31 set_env.sh\n"
      "[root@a2-031 ~]# docker exec -it train ls -la " +
      tk +
      "\ntotal 0\n"
      "[root@a2-031 ~]# docker run --rm swr.cn-south-1.myhuaweicloud.com/ascendhub/"
      "ascend-pytorch:24.0.0-A2 bash -c 'ls -la " +
      tk +
      "'\ntotal 12\n-rwxr-xr-x 1 root root 612 Nov 18 15:31 set_env.sh\n"
      "[root@a2-031 ~]# docker run --rm -v /data/empty:" +
      tk + " mindie:2.0 ls " + tk +
      "\n"
      "root@master01:~# kubectl exec -n mindie mindie-0 -c server -- ls -l " +
      tk +
      "/set_env.sh\n"
      "ls: cannot access '" +
      tk + "/set_env.sh': No such file or directory\n";
  uint32_t n = 0;
  for (auto l : text::split(text, '\n')) p.line(l, parse::LineCtx{++n, 0}, sink);
  p.finish(sink);
  std::map<std::string, std::vector<std::pair<std::string, uint32_t>>> got;
  for (const auto& f : sink.facts) got[f.name].emplace_back(f.value, f.line);
  std::string all;
  for (const auto& [k, v] : got) all += k + "=" + v.front().first + "\n";
  INFO(all);
  using V = std::vector<std::pair<std::string, uint32_t>>;
  CHECK(got["fs." + tk + "/set_env.sh"] == V{{"file", 3}});  // the host
  CHECK(got["dir.entries." + tk] == V{{"1", 2}});
  CHECK(got["ns.container.dir.entries." + tk] == V{{"0", 5}, {"0", 9}});  // exec, run -v
  CHECK(got["ns.image.fs." + tk + "/set_env.sh"] == V{{"file", 8}});      // no bind
  CHECK(got["ns.image.dir.entries." + tk] == V{{"1", 7}});
  CHECK(got["ns.container.fs." + tk + "/set_env.sh"] == V{{"missing", 11}});  // kubectl exec
  CHECK(got.count("mount." + tk) == 1);  // the run's bind is still stated (container_run shapes)
  CHECK(got.count("ns.container.fs." + tk + "/set_env.sh") == 1);
  // a container command that is not a listing stays what it was
  CHECK(!parse::namespaced_listing("docker exec -it train bash -l"));
  CHECK(!parse::namespaced_listing("docker ps -a"));
  CHECK(!parse::namespaced_listing("docker exec train ls"));  // no absolute directory
  const auto sing = parse::namespaced_listing("singularity exec --bind /data/empty:" + tk +
                                              " ascend.sif ls -la " + tk + "/latest");
  REQUIRE(sing);
  CHECK(sing->scope == "container");
  CHECK(sing->inner == "ls -la " + tk + "/latest");
  CHECK(parse::namespaced_listing("apptainer exec ascend.sif ls " + tk)->scope == "image");
}

TEST_CASE("fact shapes: the rule cache's form installs a working table, a damaged one nothing",
          "[parse][shapes]") {
  // issue 38 item 2: the app keeps this form in the rule cache (app/src/rule_cache.cpp)
  const std::string form = parse::fact_shapes_form();
  REQUIRE(form.size() > 10000);
  CHECK(parse::fact_shapes_form() == form);  // the same rules write the same bytes
  CHECK_FALSE(parse::use_fact_shapes_form(""));
  CHECK_FALSE(parse::use_fact_shapes_form(form.substr(0, form.size() / 2)));
  CHECK_FALSE(parse::use_fact_shapes_form(form.substr(0, form.size() - 1)));
  CHECK_FALSE(parse::use_fact_shapes_form(form + "x"));
  std::string other = form;  // another layout version
  other[0] = static_cast<char>(other[0] + 1);
  CHECK_FALSE(parse::use_fact_shapes_form(other));
  // installed when no parser has asked for the table yet in this process; never replaced after
  if (!parse::fact_shapes_loaded()) CHECK(parse::use_fact_shapes_form(form));
  CHECK(parse::fact_shapes_loaded());
  CHECK_FALSE(parse::use_fact_shapes_form(form));
  // the table in use states a Dockerfile's ENV (the shape's own example, Docker reference format)
  const auto r = run("dockerfile",
                     "ENV ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1 "
                     "ASCEND_OPP_PATH=\"/usr/local/Ascend/ascend-toolkit/8.5.1/opp\"\n",
                     "images/mindie/Dockerfile");
  CHECK(has(r, "image.Dockerfile.env.ASCEND_HOME_PATH", "/usr/local/Ascend/ascend-toolkit/8.5.1"));
  CHECK(
      has(r, "image.Dockerfile.env.ASCEND_OPP_PATH", "/usr/local/Ascend/ascend-toolkit/8.5.1/opp"));
}
