package io.locksmith.tck.fault;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Finds the programs the fault tools and test servers run (iptables, redis-server, etcd). */
public final class Executables {

    /** Where system binaries live when PATH is unset or lacks the sbin directories (iptables). */
    private static final List<String> SYSTEM_DIRS = List.of("/usr/bin", "/usr/sbin", "/usr/local/bin", "/sbin");

    private Executables() {
    }

    /**
     * The absolute path of {@code binary}: itself if it is a path to an executable file, else the first
     * executable of that name on the PATH or in the usual system directories.
     *
     * @param binary a program name such as {@code iptables}, or a path
     * @return the path, or empty if there is none
     * @throws NullPointerException if {@code binary} is null
     */
    public static Optional<String> find(String binary) {
        if (binary.contains(File.separator)) {
            return Files.isExecutable(Path.of(binary)) ? Optional.of(binary) : Optional.empty();
        }
        String path = System.getenv("PATH");
        List<String> dirs = new java.util.ArrayList<>();
        if (path != null) {
            dirs.addAll(List.of(path.split(File.pathSeparator)));
        }
        dirs.addAll(SYSTEM_DIRS);
        for (String dir : dirs) {
            Path candidate = Path.of(dir, binary);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate.toString());
            }
        }
        return Optional.empty();
    }
}
