package io.locksmith.lockctl;

import io.locksmith.migrate.FleetMember;
import io.locksmith.migrate.Migration;
import io.locksmith.spi.LockUri;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code lockctl fleet}: the live clients of a store migration and their phases (docs/MIGRATION.md, runbook). */
@Command(name = "fleet", mixinStandardHelpOptions = true,
        description = {
                "Lists the live clients of a store migration (a migrate: URI) with the phase each announced, as read "
                        + "from both stores: the runbook's 'watch' step (every instance in from, then none left in from).",
                "Reads only: it announces nothing and takes no lock."})
final class FleetCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    StoreOption store;

    @Option(names = "--json", description = "Print JSON for scripts.")
    boolean json;

    @Override
    @SuppressWarnings("try") // the resource is held for its scope only
    public Integer call() {
        String uri = store.uri();
        if (!LockUri.parse(uri).scheme().equals("migrate")) {
            throw new UsageException("fleet lists the clients of a migration: give the fleet's migrate: URI, e.g."
                    + " migrate:?from=redis://old:6379&to=etcd://new:2379&phase=dual");
        }
        List<FleetMember> members;
        try (Progress ignored = Progress.start(spec.commandLine().getErr(), "reading the fleet", () -> "")) {
            members = new ArrayList<>(Migration.fleet(uri));
        }
        members.sort(Comparator.comparing(FleetMember::phase).thenComparing(FleetMember::clientId));
        Map<io.locksmith.migrate.MigrationPhase, Integer> counts =
                new EnumMap<>(io.locksmith.migrate.MigrationPhase.class);
        for (io.locksmith.migrate.MigrationPhase phase : io.locksmith.migrate.MigrationPhase.values()) {
            counts.put(phase, 0);
        }
        members.forEach(member -> counts.merge(member.phase(), 1, Integer::sum));
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            List<Object> clients = new ArrayList<>();
            for (FleetMember member : members) {
                Map<String, Object> item = new LinkedHashMap<>();
                item.put("clientId", member.clientId());
                item.put("phase", member.phase().configName());
                item.put("seenIn", member.seenIn());
                clients.add(item);
            }
            Map<String, Object> phases = new LinkedHashMap<>();
            counts.forEach((phase, count) -> phases.put(phase.configName(), count));
            Map<String, Object> document = new LinkedHashMap<>();
            document.put("uri", LockUri.redact(uri));
            document.put("phases", phases);
            document.put("clients", clients);
            out.println(Json.write(document));
            return ExitCode.OK;
        }
        if (members.isEmpty()) {
            out.println("no live migrating client");
        } else {
            Table table = new Table("CLIENT", "PHASE", "SEEN IN");
            for (FleetMember member : members) {
                table.row(member.clientId(), member.phase().configName(), member.seenIn());
            }
            table.print(out);
        }
        StringBuilder summary = new StringBuilder(members.size() + " live client(s):");
        counts.forEach((phase, count) -> summary.append(' ').append(count).append(' ').append(phase.configName())
                .append(','));
        summary.setLength(summary.length() - 1);
        out.println(summary);
        return ExitCode.OK;
    }
}
