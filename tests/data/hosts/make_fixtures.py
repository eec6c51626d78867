#!/usr/bin/env python3
"""Writes the fixture /proc and /sys trees under tests/data/hosts/.

Each machine is described below in a few lines and expanded into the files
the kernel would show, in the kernel's own formats: /proc/cpuinfo as
arch/arm64/kernel/cpuinfo.c and arch/x86/kernel/cpu/proc.c print it, sysfs
attributes one value per file (cpu/online, topology/*, cache/index*/*,
regs/identification/midr_el1, node*/cpulist), /proc/meminfo and
/proc/self/mountinfo line formats, cgroup v1 and v2 control files, and DMI
strings under /sys/class/dmi/id.  The numbers are those of the named
machines (core, MIDR, family/model/stepping, cache sizes); counts are kept
small where the real machine has hundreds of CPUs.

Run from anywhere: python3 tests/data/hosts/make_fixtures.py
It rewrites every machine directory it knows and leaves others alone.
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))

ARM_FEATURES = {
    "n1": "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs",
    "v1": "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop "
          "sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs paca pacg dcpodp svei8mm svebf16 "
          "i8mm bf16 dgh rng",
    "v2": "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop "
          "sha3 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs sb paca pacg dcpodp sve2 sveaes svepmull "
          "svebitperm svesha3 flagm2 frint svei8mm svebf16 i8mm bf16 dgh rng bti",
    # AmpereOne (Ampere's own core, Armv8.6-A): the Armv8.6-A feature names
    # Linux prints, without SVE (the core's vector units are 2x128-bit NEON).
    # Assembled from the architecture level, not dumped from a real machine.
    "ampereone": "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma "
                 "lrcpc dcpop sha3 sm3 sm4 asimddp sha512 asimdfhm dit uscat ilrcpc flagm ssbs sb paca pacg "
                 "dcpodp flagm2 frint i8mm bf16 rng bti ecv",
}

X86_FLAGS_SPR = ("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr "
                 "sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts rep_good "
                 "nopl xtopology nonstop_tsc cpuid aperfmperf tsc_known_freq pni pclmulqdq dtes64 monitor ds_cpl vmx "
                 "smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt "
                 "tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb cat_l3 "
                 "cat_l2 cdp_l3 invpcid_single intel_ppin cdp_l2 ssbd mba ibrs ibpb stibp ibrs_enhanced "
                 "tpr_shadow flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid cqm "
                 "rdt_a avx512f avx512dq rdseed adx smap avx512ifma clflushopt clwb intel_pt avx512cd sha_ni "
                 "avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total "
                 "cqm_mbm_local split_lock_detect avx_vnni avx512_bf16 wbnoinvd dtherm ida arat pln pts hwp "
                 "hwp_act_window hwp_epp hwp_pkg_req vnmi avx512vbmi umip pku ospke waitpkg avx512_vbmi2 gfni vaes "
                 "vpclmulqdq avx512_vnni avx512_bitalg tme avx512_vpopcntdq la57 rdpid bus_lock_detect cldemote "
                 "movdiri movdir64b enqcmd fsrm md_clear serialize tsxldtrk pconfig arch_lbr ibt amx_bf16 "
                 "avx512_fp16 amx_tile amx_int8 flush_l1d arch_capabilities")
X86_FLAGS_GENOA = ("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse "
                   "sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good amd_lbr_v2 nopl "
                   "nonstop_tsc cpuid extd_apicid aperfmperf rapl pni pclmulqdq monitor ssse3 fma cx16 pcid sse4_1 "
                   "sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand lahf_lm cmp_legacy svm extapic cr8_legacy "
                   "abm sse4a misalignsse 3dnowprefetch osvw ibs skinit wdt tce topoext perfctr_core perfctr_nb "
                   "bpext perfctr_llc mwaitx cpb cat_l3 cdp_l3 invpcid_single hw_pstate ssbd mba perfmon_v2 ibrs "
                   "ibpb stibp ibrs_enhanced vmmcall fsgsbase bmi1 avx2 smep bmi2 erms invpcid cqm rdt_a avx512f "
                   "avx512dq rdseed adx smap avx512ifma clflushopt clwb avx512cd sha_ni avx512bw avx512vl xsaveopt "
                   "xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local avx512_bf16 clzero "
                   "irperf xsaveerptr rdpru wbnoinvd amd_ppin cppc arat npt lbrv svm_lock nrip_save tsc_scale "
                   "vmcb_clean flushbyasid decodeassists pausefilter pfthreshold avic v_vmsave_vmload vgif "
                   "x2avic v_spec_ctrl vnmi avx512vbmi umip pku ospke avx512_vbmi2 gfni vaes vpclmulqdq "
                   "avx512_vnni avx512_bitalg avx512_vpopcntdq la57 rdpid overflow_recov succor smca fsrm flush_l1d")


def write(root, path, text):
    full = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def cpulist(cpus):
    cpus = sorted(cpus)
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def size_k(b):
    return "%dK" % (b // 1024)


def machine(name, m):
    root = os.path.join(HERE, name)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    n = m["cpus"]
    tpc = m.get("threads_per_core", 1)
    sockets = m.get("sockets", 1)
    cores_per_socket = n // tpc // sockets

    # Linux numbers SMT siblings n/2 apart on x86 (all first threads, then
    # the second ones); cores are numbered per package.
    def place(cpu):
        first = cpu % (n // tpc)
        thread = cpu // (n // tpc)
        pkg = first // cores_per_socket
        core = first % cores_per_socket
        return pkg, core, thread

    def siblings(cpu):
        first = cpu % (n // tpc)
        return [first + t * (n // tpc) for t in range(tpc)]

    if m.get("sysfs_cpu", True):
        write(root, "/sys/devices/system/cpu/online", cpulist(range(n)) + "\n")
        write(root, "/sys/devices/system/cpu/possible", cpulist(range(n)) + "\n")
        for cpu in range(n):
            d = "/sys/devices/system/cpu/cpu%d" % cpu
            pkg, core, _ = place(cpu)
            write(root, d + "/topology/physical_package_id", "%d\n" % pkg)
            write(root, d + "/topology/core_id", "%d\n" % core)
            write(root, d + "/topology/thread_siblings_list", cpulist(siblings(cpu)) + "\n")
            write(root, d + "/topology/core_cpus_list", cpulist(siblings(cpu)) + "\n")
            if "midr" in m and m.get("midr_sysfs", True):
                write(root, d + "/regs/identification/midr_el1", "0x%016x\n" % m["midr"])
            for idx, (level, typ, size, share, ways) in enumerate(m["caches"]):
                # share: "core" (the core's threads), "socket", or an int
                # (that many cores share one instance)
                if share == "core":
                    shared = siblings(cpu)
                elif share == "socket":
                    shared = [c for c in range(n) if place(c)[0] == pkg]
                else:
                    group = core // share
                    shared = [c for c in range(n) if place(c)[0] == pkg and place(c)[1] // share == group]
                c = d + "/cache/index%d" % idx
                write(root, c + "/level", "%d\n" % level)
                write(root, c + "/type", typ + "\n")
                write(root, c + "/size", size_k(size) + "\n")
                write(root, c + "/shared_cpu_list", cpulist(shared) + "\n")
                write(root, c + "/ways_of_associativity", "%d\n" % ways)
                write(root, c + "/coherency_line_size", "64\n")

    # /proc/cpuinfo
    blocks = []
    for cpu in range(n):
        pkg, core, _ = place(cpu)
        if "midr" in m:
            midr = m["midr"]
            blocks.append(
                "processor\t: %d\nBogoMIPS\t: %s\nFeatures\t: %s\nCPU implementer\t: 0x%02x\n"
                "CPU architecture: 8\nCPU variant\t: 0x%x\nCPU part\t: 0x%03x\nCPU revision\t: %d\n"
                % (cpu, m["bogomips"], m["features"], (midr >> 24) & 0xff, (midr >> 20) & 0xf,
                   (midr >> 4) & 0xfff, midr & 0xf))
        else:
            blocks.append(
                "processor\t: %d\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\nmodel name\t: %s\n"
                "stepping\t: %d\nmicrocode\t: 0x%x\ncpu MHz\t\t: %s\ncache size\t: %s\nphysical id\t: %d\n"
                "siblings\t: %d\ncore id\t\t: %d\ncpu cores\t: %d\napicid\t\t: %d\ninitial apicid\t: %d\n"
                "fpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: %d\nwp\t\t: yes\nflags\t\t: %s\n"
                "bogomips\t: %s\nclflush size\t: 64\ncache_alignment\t: 64\n"
                "address sizes\t: 46 bits physical, 57 bits virtual\npower management:\n"
                % (cpu, m["vendor"], m["family"], m["model"], m["model_name"], m["stepping"], m["microcode"],
                   m["mhz"], m["cache_size"], pkg, cores_per_socket * tpc, core, cores_per_socket, cpu * 2,
                   cpu * 2, m["cpuid_level"], m["flags"], m["bogomips"]))
    write(root, "/proc/cpuinfo", "\n".join(blocks) + "\n")

    mem_kb = m["mem_kb"]
    huge = m.get("hugepages", {2048: 0})
    meminfo = ["MemTotal:       %8d kB" % mem_kb, "MemFree:        %8d kB" % (mem_kb * 9 // 10),
               "MemAvailable:   %8d kB" % (mem_kb * 95 // 100), "Buffers:           12345 kB",
               "Cached:          1234567 kB", "SwapTotal:      %8d kB" % m.get("swap_kb", 0),
               "SwapFree:       %8d kB" % m.get("swap_kb", 0),
               "HugePages_Total:   %5d" % huge.get(m.get("hugepagesize_kb", 2048), 0),
               "HugePages_Free:    %5d" % huge.get(m.get("hugepagesize_kb", 2048), 0),
               "HugePages_Rsvd:        0", "HugePages_Surp:        0",
               "Hugepagesize:       %d kB" % m.get("hugepagesize_kb", 2048),
               "Hugetlb:               0 kB"]
    write(root, "/proc/meminfo", "\n".join(meminfo) + "\n")
    for size_kb, count in huge.items():
        d = "/sys/kernel/mm/hugepages/hugepages-%dkB" % size_kb
        write(root, d + "/nr_hugepages", "%d\n" % count)
        write(root, d + "/free_hugepages", "%d\n" % count)
        write(root, d + "/resv_hugepages", "0\n")
        write(root, d + "/surplus_hugepages", "0\n")
    write(root, "/sys/kernel/mm/transparent_hugepage/enabled", m.get("thp", "always [madvise] never") + "\n")
    write(root, "/sys/kernel/mm/transparent_hugepage/defrag",
          "always defer defer+madvise [madvise] never\n")
    write(root, "/sys/kernel/mm/transparent_hugepage/shmem_enabled", "always within_size advise [never] deny force\n")
    write(root, "/proc/sys/vm/swappiness", "%d\n" % m.get("swappiness", 60))
    write(root, "/proc/sys/vm/overcommit_memory", "%d\n" % m.get("overcommit", 0))
    write(root, "/proc/sys/vm/overcommit_ratio", "50\n")
    write(root, "/proc/sys/vm/dirty_ratio", "20\n")
    write(root, "/proc/sys/vm/dirty_background_ratio", "10\n")
    write(root, "/proc/sys/vm/zone_reclaim_mode", "0\n")
    write(root, "/proc/sys/kernel/osrelease", m["kernel"] + "\n")
    write(root, "/etc/os-release", 'NAME="%s"\nPRETTY_NAME="%s"\n' % (m["os"], m["os"]))
    write(root, "/proc/self/smaps",
          "aaaab0000000-aaaab0010000 r-xp 00000000 103:01 1234 /usr/bin/cat\n"
          "Size:                 %d kB\nKernelPageSize:       %d kB\nMMUPageSize:          %d kB\n"
          % (m.get("page_kb", 4), m.get("page_kb", 4), m.get("page_kb", 4)))
    write(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource", m["clocksource"] + "\n")

    for node, cpus in enumerate(m.get("numa", [list(range(n))])):
        d = "/sys/devices/system/node/node%d" % node
        write(root, d + "/cpulist", cpulist(cpus) + "\n")
        node_kb = mem_kb // len(m.get("numa", [0]))
        write(root, d + "/meminfo", "Node %d MemTotal:       %d kB\nNode %d MemFree:        %d kB\n"
              % (node, node_kb, node, node_kb // 2))
    write(root, "/sys/devices/system/node/online", cpulist(range(len(m.get("numa", [0]))) ) + "\n")

    for k, v in m.get("dmi", {}).items():
        write(root, "/sys/class/dmi/id/" + k, v + "\n")

    cg = m.get("cgroup", {"version": 2})
    if cg["version"] == 2:
        path = cg.get("path", "/")
        write(root, "/proc/self/cgroup", "0::%s\n" % path)
        write(root, "/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory hugetlb pids\n")
        write(root, "/sys/fs/cgroup/cpuset.cpus.effective", cpulist(range(n)) + "\n")
        if path != "/":
            d = "/sys/fs/cgroup" + path
            write(root, d + "/memory.max", cg.get("memory_max", "max") + "\n")
            write(root, d + "/cpu.max", cg.get("cpu_max", "max 100000") + "\n")
            if "cpuset" in cg:
                write(root, d + "/cpuset.cpus.effective", cg["cpuset"] + "\n")
            parent = os.path.dirname(path)
            if parent != "/":
                write(root, "/sys/fs/cgroup" + parent + "/memory.max", cg.get("parent_memory_max", "max") + "\n")
    else:
        path = cg.get("path", "/")
        write(root, "/proc/self/cgroup",
              "12:memory:%s\n11:cpuset:%s\n4:cpu,cpuacct:%s\n1:name=systemd:%s\n0::%s\n"
              % (path, path, path, path, path))
        base = "/sys/fs/cgroup"
        rel = "" if path == "/" else path
        write(root, base + "/memory" + rel + "/memory.limit_in_bytes", cg.get("memory_limit", "9223372036854771712") + "\n")
        write(root, base + "/cpu,cpuacct" + rel + "/cpu.cfs_quota_us", cg.get("quota", "-1") + "\n")
        write(root, base + "/cpu,cpuacct" + rel + "/cpu.cfs_period_us", "100000\n")
        write(root, base + "/cpuset" + rel + "/cpuset.effective_cpus", cg.get("cpuset", cpulist(range(n))) + "\n")

    st = m["storage"]
    write(root, "/proc/self/mountinfo",
          "22 1 %s / / rw,relatime shared:1 - %s %s rw\n"
          "23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
          "24 22 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:2 - sysfs sysfs rw\n"
          "30 22 0:25 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw\n"
          "%s" % (st["root_majmin"], st["root_fs"], st["root_src"], st.get("extra_mounts", "")))
    for disk in st["disks"]:
        d = "/sys/block/" + disk["name"]
        write(root, d + "/queue/rotational", "%d\n" % disk["rotational"])
        write(root, d + "/queue/scheduler", disk.get("scheduler", "[none] mq-deadline") + "\n")
        if "model" in disk:
            write(root, d + "/device/model", disk["model"] + "\n")
        for p in disk.get("partitions", []):
            write(root, d + "/" + p + "/partition", "1\n")
        if "dm_name" in disk:
            write(root, d + "/dm/name", disk["dm_name"] + "\n")
            for slave in disk.get("slaves", []):
                # sysfs has symlinks here; only the names matter to readers
                write(root, d + "/slaves/" + slave, "")


GRAVITON_CACHES_N1 = [(1, "Data", 64 << 10, "core", 4), (1, "Instruction", 64 << 10, "core", 4),
                      (2, "Unified", 1 << 20, "core", 8), (3, "Unified", 32 << 20, "socket", 16)]

MACHINES = {
    "graviton2": dict(
        cpus=4, midr=0x413FD0C1, bogomips="243.75", features=ARM_FEATURES["n1"],
        caches=GRAVITON_CACHES_N1, mem_kb=16092044, kernel="5.10.215-203.850.amzn2.aarch64",
        os="Amazon Linux 2", clocksource="arch_sys_counter",
        dmi={"sys_vendor": "Amazon EC2", "product_name": "m6g.xlarge", "board_vendor": "Amazon EC2",
             "bios_vendor": "Amazon EC2", "chassis_asset_tag": "Amazon EC2"},
        cgroup={"version": 2, "path": "/system.slice/postgresql.service"},
        storage={"root_majmin": "259:1", "root_fs": "xfs", "root_src": "/dev/nvme0n1p1",
                 "disks": [{"name": "nvme0n1", "rotational": 0, "partitions": ["nvme0n1p1"],
                            "model": "Amazon Elastic Block Store"}]}),
    "graviton3": dict(
        # MIDR only in /proc/cpuinfo (older kernels or restricted sysfs), and a
        # 64 KB page kernel as some Arm distributions ship.
        cpus=16, midr=0x411FD401, midr_sysfs=False, bogomips="2100.00", features=ARM_FEATURES["v1"],
        caches=[(1, "Data", 64 << 10, "core", 4), (1, "Instruction", 64 << 10, "core", 4),
                (2, "Unified", 1 << 20, "core", 8), (3, "Unified", 32 << 20, "socket", 16)],
        mem_kb=32247012, kernel="6.1.79-99.167.amzn2023.aarch64+64k", os="Amazon Linux 2023",
        page_kb=64, hugepagesize_kb=524288, hugepages={524288: 0, 2048: 0},
        clocksource="arch_sys_counter",
        dmi={"sys_vendor": "Amazon EC2", "product_name": "c7g.4xlarge", "board_vendor": "Amazon EC2",
             "bios_vendor": "Amazon EC2"},
        storage={"root_majmin": "259:1", "root_fs": "xfs", "root_src": "/dev/nvme0n1p1",
                 "extra_mounts": "40 22 259:3 / /var/lib/postgresql rw,noatime shared:30 - ext4 /dev/nvme1n1 rw\n",
                 "disks": [{"name": "nvme0n1", "rotational": 0, "partitions": ["nvme0n1p1"]},
                           {"name": "nvme1n1", "rotational": 0, "model": "Amazon EC2 NVMe Instance Storage"}]}),
    "graviton4": dict(
        # Inside a container limited by cgroup v2: 4 CPUs of quota, 12 GiB.
        cpus=8, midr=0x410FD4F1, bogomips="2000.00", features=ARM_FEATURES["v2"],
        caches=[(1, "Data", 64 << 10, "core", 4), (1, "Instruction", 64 << 10, "core", 4),
                (2, "Unified", 2 << 20, "core", 8), (3, "Unified", 36 << 20, "socket", 12)],
        mem_kb=65023404, kernel="6.8.0-1015-aws", os="Ubuntu 24.04.1 LTS", hugepages={2048: 1024},
        clocksource="arch_sys_counter", thp="always madvise [never]", swappiness=1,
        dmi={"sys_vendor": "Amazon EC2", "product_name": "r8g.2xlarge", "board_vendor": "Amazon EC2",
             "bios_vendor": "Amazon EC2"},
        cgroup={"version": 2, "path": "/kubepods.slice/pod1234/cri-containerd-abcd.scope",
                "memory_max": "12884901888", "parent_memory_max": "17179869184", "cpu_max": "400000 100000",
                "cpuset": "0-7"},
        storage={"root_majmin": "0:30", "root_fs": "overlay", "root_src": "overlay",
                 "disks": [{"name": "nvme0n1", "rotational": 0, "partitions": ["nvme0n1p1"]}]}),
    "ampere-altra": dict(
        # Bare metal, one socket; the L3 here is Altra's system level cache.
        cpus=32, midr=0x413FD0C1, bogomips="50.00", features=ARM_FEATURES["n1"],
        caches=GRAVITON_CACHES_N1, mem_kb=131574356, kernel="6.1.0-18-arm64", os="Debian GNU/Linux 12 (bookworm)",
        clocksource="arch_sys_counter",
        dmi={"sys_vendor": "GIGABYTE", "product_name": "R152-P31-00", "board_vendor": "GIGABYTE",
             "bios_vendor": "GIGABYTE"},
        cgroup={"version": 1, "path": "/"},
        storage={"root_majmin": "259:2", "root_fs": "ext4", "root_src": "/dev/nvme0n1p2",
                 "extra_mounts": "41 22 253:0 / /srv/pg rw,noatime shared:31 - xfs /dev/mapper/vg0-pg rw\n",
                 "disks": [{"name": "nvme0n1", "rotational": 0, "partitions": ["nvme0n1p1", "nvme0n1p2"],
                            "model": "SAMSUNG MZQL23T8HCLS-00A07"},
                           {"name": "sda", "rotational": 1, "partitions": ["sda1"], "model": "ST4000NM000A-2HZ"},
                           {"name": "dm-0", "rotational": 1, "dm_name": "vg0-pg", "slaves": ["sda1"]}]}),
    "ampereone": dict(
        # A 16-vCPU AmpereOne virtual machine (Oracle Cloud's A2 shapes run
        # AmpereOne; one vCPU is one core, there is no SMT).  MIDR: implementer
        # 0xc0 (Ampere), part 0xac3.  Caches from Ampere's product brief:
        # 64 KB L1D and 16 KB L1I per core, 2 MB L2 per core, a 64 MB system
        # level cache (shown as L3); the ways are plausible, not documented.
        cpus=16, midr=0xC00FAC30, bogomips="2000.00", features=ARM_FEATURES["ampereone"],
        caches=[(1, "Data", 64 << 10, "core", 4), (1, "Instruction", 16 << 10, "core", 4),
                (2, "Unified", 2 << 20, "core", 8), (3, "Unified", 64 << 20, "socket", 16)],
        mem_kb=131574356, kernel="5.15.0-206.153.7.el8uek.aarch64", os="Oracle Linux Server 8.10",
        clocksource="arch_sys_counter",
        dmi={"sys_vendor": "QEMU", "product_name": "KVM Virtual Machine", "board_vendor": "QEMU",
             "bios_vendor": "EFI Development Kit II / OVMF", "chassis_asset_tag": "OracleCloud.com"},
        cgroup={"version": 2, "path": "/system.slice/postgresql-16.service"},
        storage={"root_majmin": "8:3", "root_fs": "xfs", "root_src": "/dev/sda3",
                 "disks": [{"name": "sda", "rotational": 0, "partitions": ["sda1", "sda2", "sda3"],
                            "model": "BlockVolume"}]}),
    "intel-sapphire-rapids": dict(
        # Two sockets of Xeon Gold 5415+ (8 cores, 2 threads each), bare metal.
        cpus=32, sockets=2, threads_per_core=2, vendor="GenuineIntel", family=6, model=143,
        model_name="Intel(R) Xeon(R) Gold 5415+", stepping=8, microcode=0x2b000571, mhz="2900.000",
        cache_size="23040 KB", cpuid_level=32, flags=X86_FLAGS_SPR, bogomips="5800.00",
        caches=[(1, "Data", 48 << 10, "core", 12), (1, "Instruction", 32 << 10, "core", 8),
                (2, "Unified", 2 << 20, "core", 16), (3, "Unified", 23040 << 10, "socket", 15)],
        mem_kb=263518812, kernel="5.14.0-427.13.1.el9_4.x86_64", os="Rocky Linux 9.4 (Blue Onyx)",
        clocksource="tsc", hugepages={2048: 8192, 1048576: 0},
        numa=[list(range(0, 8)) + list(range(16, 24)), list(range(8, 16)) + list(range(24, 32))],
        dmi={"sys_vendor": "Supermicro", "product_name": "SYS-621C-TN12R", "board_vendor": "Supermicro",
             "bios_vendor": "American Megatrends International, LLC."},
        cgroup={"version": 2, "path": "/user.slice/user-1000.slice/session-3.scope"},
        storage={"root_majmin": "8:2", "root_fs": "xfs", "root_src": "/dev/sda2",
                 "disks": [{"name": "sda", "rotational": 1, "partitions": ["sda1", "sda2"],
                            "model": "ST8000NM017B-2TJ"}]}),
    "amd-genoa": dict(
        # One EPYC 9354 (32 cores in 8 CCDs of 4, 32 MB L3 per CCD), SMT on,
        # in a Docker container with a cgroup v1 CPU quota of 8 and 32 GiB.
        cpus=64, threads_per_core=2, vendor="AuthenticAMD", family=25, model=17,
        model_name="AMD EPYC 9354 32-Core Processor", stepping=1, microcode=0xa101144, mhz="3250.000",
        cache_size="1024 KB", cpuid_level=16, flags=X86_FLAGS_GENOA, bogomips="6490.00",
        caches=[(1, "Data", 32 << 10, "core", 8), (1, "Instruction", 32 << 10, "core", 8),
                (2, "Unified", 1 << 20, "core", 8), (3, "Unified", 32 << 20, 4, 16)],
        mem_kb=395936244, kernel="6.8.0-45-generic", os="Ubuntu 22.04.4 LTS", clocksource="tsc",
        dmi={"sys_vendor": "Dell Inc.", "product_name": "PowerEdge R6625", "board_vendor": "Dell Inc.",
             "bios_vendor": "Dell Inc."},
        cgroup={"version": 1, "path": "/docker/3f2a9c", "memory_limit": "34359738368", "quota": "800000",
                "cpuset": "0-15,32-47"},
        storage={"root_majmin": "0:52", "root_fs": "overlay", "root_src": "overlay",
                 "extra_mounts": "60 22 259:5 /var/lib/docker/volumes/pg/_data /var/lib/postgresql/data "
                                 "rw,relatime - ext4 /dev/nvme2n1p1 rw\n",
                 "disks": [{"name": "nvme2n1", "rotational": 0, "partitions": ["nvme2n1p1"],
                            "model": "Dell Ent NVMe CM6 RI 3.84TB"}]}),
}


def broken():
    """A machine that shows almost nothing, and some of it wrong."""
    root = os.path.join(HERE, "broken")
    shutil.rmtree(root, ignore_errors=True)
    write(root, "/proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 50.00\n\nprocessor\t: 1\nBogoMIPS\t: 50.00\n")
    write(root, "/proc/meminfo", "MemFree:   1234 kB\nBogus line without a number\n")
    write(root, "/sys/devices/system/cpu/online", "garbage\n")
    write(root, "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "not-a-number\n")
    write(root, "/sys/kernel/mm/transparent_hugepage/enabled", "no brackets here\n")
    write(root, "/proc/self/cgroup", "")
    write(root, "/proc/self/mountinfo", "this is not a mountinfo line\n")


if __name__ == "__main__":
    for name, spec in MACHINES.items():
        machine(name, spec)
    broken()
    print("wrote", ", ".join(list(MACHINES) + ["broken"]), "under", HERE)
