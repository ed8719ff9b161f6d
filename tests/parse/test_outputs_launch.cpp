// Issue 17 item 5: the environment and mounts of a process come from how it was started, scoped
// to that process. Line shapes: systemd.exec(5) (`Environment="VAR1=word1 word2" VAR2=word3`,
// `EnvironmentFile=-/etc/default/x`), `systemctl cat` (`# /etc/systemd/system/x.service` before
// each file), the Kubernetes Pod spec (containers[].env[].name/value, volumeMounts[].mountPath,
// volumes[].hostPath.path; `kubectl get -o yaml` indents list items at their key's column),
// docker compose (services.<svc>.environment as a list or a map, volumes `HOST:CONTAINER:ro`),
// sbatch(1) `#SBATCH` options, scontrol(1) `show job` (Key=Value, indented continuation lines)
// and `show config` (`VSizeFactor             = 0 percent`), /proc/<pid>/environ (NUL-separated).
#include "test_outputs_util.hpp"

using namespace fltest;

TEST_CASE("launch_spec: systemd unit through systemctl cat", "[parse][outputs][launch]") {
  const std::string text =
      "# /etc/systemd/system/mindie-server.service\n"
      "[Unit]\n"
      "Description=MindIE inference server\n"
      "Environment=NOT_IN_SERVICE=1\n"
      "\n"
      "[Service]\n"
      "Environment=\"ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1\" "
      "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64\n"
      "EnvironmentFile=-/etc/default/mindie\n"
      "ExecStart=/usr/local/bin/mindieservice_daemon --config \\\n"
      "    /etc/mindie/config.json\n"
      "\n"
      "# /etc/systemd/system/mindie-server.service.d/override.conf\n"
      "[Service]\n"
      "Environment=\"ASCEND_RT_VISIBLE_DEVICES=0,1\"\n";
  for (const std::string& t : {text, crlf(text)}) {
    const auto r = run("launch_spec", t, "case/systemctl_cat_mindie-server.txt");
    check_facts(
        r, {{"unit.mindie-server.service.env.ASCEND_HOME_PATH",
             "/usr/local/Ascend/ascend-toolkit/8.5.1", 7},
            {"unit.mindie-server.service.env.LD_LIBRARY_PATH", "/usr/local/Ascend/driver/lib64", 7},
            {"unit.mindie-server.service.environment_file", "/etc/default/mindie", 8},
            {"unit.mindie-server.service.exec_start",
             "/usr/local/bin/mindieservice_daemon --config /etc/mindie/config.json", 9},
            {"unit.mindie-server.service.env.ASCEND_RT_VISIBLE_DEVICES", "0,1", 14}});
    // the unit's environment is not the shell's, and [Unit] holds no environment
    CHECK_FALSE(has_name(r, "env.ASCEND_HOME_PATH"));
    for (const auto& f : r.facts) CHECK(f.name.find("NOT_IN_SERVICE") == std::string::npos);
  }
}

TEST_CASE("launch_spec: systemd.exec quoting", "[parse][outputs][launch]") {
  // systemd.exec(5): Environment="VAR1=word1 word2" VAR2=word3 "VAR3=$word 5 6"
  const auto r = run("launch_spec",
                     "[Service]\nEnvironment=\"VAR1=word1 word2\" VAR2=word3 \"VAR3=$word 5 6\"\n",
                     "etc/systemd/system/train.service");
  check_facts(r, {{"unit.train.service.env.VAR1", "word1 word2", 2},
                  {"unit.train.service.env.VAR2", "word3", 2},
                  {"unit.train.service.env.VAR3", "$word 5 6", 2}});
  SECTION("systemctl show -p Environment names the unit in its command") {
    const auto r2 = run("launch_spec",
                        "$ systemctl show ascend-train -p Environment\n"
                        "Environment=ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.0.RC3\n");
    check_facts(r2, {{"unit.ascend-train.service.env.ASCEND_HOME_PATH",
                      "/usr/local/Ascend/ascend-toolkit/8.0.RC3", 2}});
  }
}

TEST_CASE("launch_spec: Kubernetes pod env and a hostPath over the toolkit",
          "[parse][outputs][launch]") {
  // kubectl get pod -o yaml style: list items at their key's indentation
  const std::string pod =
      "apiVersion: v1\n"
      "kind: Pod\n"
      "metadata:\n"
      "  name: infer-0\n"
      "  namespace: default\n"
      "spec:\n"
      "  containers:\n"
      "  - name: server\n"
      "    image: swr.cn-south-1.myhuaweicloud.com/ascendhub/mindie:2.0.RC1-800I-A2-py311\n"
      "    command: [\"bash\", \"-c\", \"sleep 86400\"]\n"
      "    env:\n"
      "    - name: ASCEND_HOME_PATH\n"
      "      value: /usr/local/Ascend/ascend-toolkit/latest\n"
      "    - name: POD_IP\n"
      "      valueFrom:\n"
      "        fieldRef:\n"
      "          fieldPath: status.podIP\n"
      "    volumeMounts:\n"
      "    - mountPath: /usr/local/Ascend/ascend-toolkit\n"
      "      name: toolkit\n"
      "      readOnly: true\n"
      "    - mountPath: /data\n"
      "      name: data\n"
      "  - name: sidecar\n"
      "    env:\n"
      "    - name: ASCEND_HOME_PATH\n"
      "      value: \"/opt/other\"\n"
      "  volumes:\n"
      "  - hostPath:\n"
      "      path: /data/empty-toolkit\n"
      "      type: DirectoryOrCreate\n"
      "    name: toolkit\n"
      "  - name: data\n"
      "    persistentVolumeClaim:\n"
      "      claimName: models\n";
  const auto r = run("launch_spec", pod, "k8s/pod-infer-0.yaml");
  check_facts(r, {{"container.infer-0/server.env.ASCEND_HOME_PATH",
                   "/usr/local/Ascend/ascend-toolkit/latest", 12},
                  {"container.infer-0/server.env.POD_IP", "(valueFrom)", 14},
                  {"container.infer-0/sidecar.env.ASCEND_HOME_PATH", "/opt/other", 26},
                  {"mount./usr/local/Ascend/ascend-toolkit",
                   "root=/data/empty-toolkit source=hostPath:toolkit fstype=bind opts=ro "
                   "scope=container.infer-0/server",
                   19}});
  CHECK_FALSE(has_name(r, "mount./data"));  // a claim, not a host directory
  CHECK_FALSE(has_name(r, "env.ASCEND_HOME_PATH"));

  SECTION("a Deployment indented the other way, two documents") {
    const auto r2 = run("launch_spec",
                        "---\n"
                        "apiVersion: apps/v1\n"
                        "kind: Deployment\n"
                        "metadata:\n"
                        "  name: trainer\n"
                        "spec:\n"
                        "  template:\n"
                        "    metadata:\n"
                        "      labels:\n"
                        "        app: trainer\n"
                        "    spec:\n"
                        "      containers:\n"
                        "        - name: main\n"
                        "          env:\n"
                        "            - name: HCCL_CONNECT_TIMEOUT\n"
                        "              value: \"1800\"\n"
                        "---\n"
                        "apiVersion: v1\n"
                        "kind: Pod\n"
                        "metadata:\n"
                        "  name: other\n"
                        "spec:\n"
                        "  containers:\n"
                        "  - name: c\n"
                        "    env:\n"
                        "    - name: HCCL_CONNECT_TIMEOUT\n"
                        "      value: \"120\"\n");
    check_facts(r2, {{"container.trainer/main.env.HCCL_CONNECT_TIMEOUT", "1800", 15},
                     {"container.other/c.env.HCCL_CONNECT_TIMEOUT", "120", 26}});
    CHECK(count(r2, "container.trainer/main.env.HCCL_CONNECT_TIMEOUT") == 1);
  }
}

TEST_CASE("launch_spec: docker compose environment and volumes", "[parse][outputs][launch]") {
  const auto r = run("launch_spec",
                     "services:\n"
                     "  vllm:\n"
                     "    image: quay.io/ascend/vllm-ascend:v0.9.1\n"
                     "    container_name: vllm-ascend-0\n"
                     "    environment:\n"
                     "      - ASCEND_RT_VISIBLE_DEVICES=0,1,2,3\n"
                     "      - \"LD_LIBRARY_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1/lib64\"\n"
                     "    volumes:\n"
                     "      - /usr/local/dcmi:/usr/local/dcmi\n"
                     "      - /opt/empty:/usr/local/Ascend/ascend-toolkit:ro\n"
                     "      - models:/models\n"
                     "  web:\n"
                     "    environment:\n"
                     "      TZ: Asia/Shanghai  # a comment\n"
                     "    env_file: .env\n"
                     "volumes:\n"
                     "  models:\n",
                     "deploy/docker-compose.yml");
  check_facts(
      r, {{"container.vllm-ascend-0.env.ASCEND_RT_VISIBLE_DEVICES", "0,1,2,3", 6},
          {"container.vllm-ascend-0.env.LD_LIBRARY_PATH",
           "/usr/local/Ascend/ascend-toolkit/8.5.1/lib64", 7},
          {"mount./usr/local/Ascend/ascend-toolkit",
           "root=/opt/empty source=bind fstype=bind opts=ro scope=container.vllm-ascend-0", 10},
          {"mount./usr/local/dcmi",
           "root=/usr/local/dcmi source=bind fstype=bind opts=rw scope=container.vllm-ascend-0", 9},
          {"container.web.env.TZ", "Asia/Shanghai", 14},
          {"container.web.env_file", ".env", 15}});
  CHECK_FALSE(has_name(r, "mount./models"));
  CHECK(r.malformed == 0);
}

TEST_CASE("launch_spec: Slurm job script and scontrol", "[parse][outputs][launch]") {
  SECTION("job script") {
    const auto r = run("launch_spec",
                       "#!/bin/bash\n"
                       "#SBATCH --job-name=llama-pretrain\n"
                       "#SBATCH --nodes=16 --ntasks-per-node=1\n"
                       "#SBATCH --export=ALL,HCCL_BUFFSIZE=200\n"
                       "export ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.0.RC3\n"
                       "ulimit -v unlimited\n"
                       "srun python train.py\n",
                       "jobs/pretrain.sbatch");
    check_facts(r, {{"job.llama-pretrain.sbatch.nodes", "16", 3},
                    {"job.llama-pretrain.sbatch.ntasks_per_node", "1", 3},
                    {"job.llama-pretrain.env.HCCL_BUFFSIZE", "200", 4},
                    {"job.llama-pretrain.env.ASCEND_HOME_PATH",
                     "/usr/local/Ascend/ascend-toolkit/8.0.RC3", 5},
                    {"job.llama-pretrain.ulimit.v", "unlimited", 6}});
    CHECK_FALSE(has_name(r, "env.ASCEND_HOME_PATH"));
  }
  SECTION("scontrol show job and show config") {
    const auto r = run("launch_spec",
                       "$ scontrol show job 4242\n"
                       "JobId=4242 JobName=llama-pretrain\n"
                       "   UserId=ai(1000) GroupId=ai(1000) MCS_label=N/A\n"
                       "   JobState=RUNNING Reason=None Dependency=(null)\n"
                       "   Command=/home/ai/jobs/pretrain.sbatch\n"
                       "$ scontrol show config\n"
                       "Configuration data as of 2026-08-13T10:02:11\n"
                       "PropagateResourceLimits = ALL\n"
                       "VSizeFactor             = 0 percent\n");
    check_facts(r, {{"job.4242.JobName", "llama-pretrain", 2},
                    {"job.4242.JobState", "RUNNING", 4},
                    {"job.4242.Command", "/home/ai/jobs/pretrain.sbatch", 5},
                    {"slurm.VSizeFactor", "0 percent", 9},
                    {"slurm.PropagateResourceLimits", "ALL", 8}});
  }
}

TEST_CASE("environ: /proc/<pid>/environ names its process", "[parse][outputs][environ]") {
  const std::string nul(
      "ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.0\0"
      "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64\0",
      103);
  const auto r = run("environ", nul, "case/proc/19334/environ");
  check_facts(r,
              {{"process.19334.env.ASCEND_HOME_PATH", "/usr/local/Ascend/ascend-toolkit/8.5.0", 1},
               {"env.ASCEND_HOME_PATH", "/usr/local/Ascend/ascend-toolkit/8.5.0", 1}});
  const auto shell = run("environ", "ASCEND_HOME_PATH=/x\n", "case/printenv.txt");
  for (const auto& f : shell.facts) CHECK(f.name.rfind("process.", 0) != 0);
}
