import Foundation
import Soak

/// `peez-soak`: seeded runs of the service under faults, checked against the ledger's guarantees.
///
///   peez-soak [--stores sqlite,postgres] [--seeds 1,2,3] [--minutes 1] [--peez .build/release/peez] [--out /tmp/peez-soak]
///
/// Exit status 0 when no run found a violation, 1 when one did, 2 when a run could not be carried out.
let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), arguments.index(after: index) < arguments.endIndex else { return nil }
    return arguments[arguments.index(after: index)]
}
if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: peez-soak [--stores sqlite,postgres] [--seeds 1,2,3] [--minutes 1] [--peez .build/release/peez] [--out folder]")
    exit(0)
}
let stores = (option("--stores") ?? "sqlite,postgres").split(separator: ",").map { SoakStore(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
let seeds = (option("--seeds") ?? "1").split(separator: ",").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
guard !stores.isEmpty, !stores.contains(nil), !seeds.isEmpty, let minutes = Double(option("--minutes") ?? "1"), minutes > 0, minutes <= 24 * 60 else {
    FileHandle.standardError.write(
        Data(
            "peez-soak: --stores must be sqlite and/or postgres, --seeds numbers, each separated by commas, --minutes a number of minutes up to 1440\n"
                .utf8
        )
    )
    exit(2)
}
let peez = option("--peez") ?? ".build/release/peez"
let out = option("--out") ?? NSTemporaryDirectory() + "peez-soak"
var found = false
for store in stores.compactMap({ $0 }) {
    for seed in seeds {
        let run = SoakRun(
            seed: seed,
            store: store,
            duration: .milliseconds(Int64(minutes * 60_000)),
            peez: peez,
            folder: out + "/\(store.rawValue)-seed-\(seed)"
        )
        do {
            let report = try await run.run()
            // Written at once, not buffered: a long run's summaries are read as they come.
            FileHandle.standardOutput.write(Data((report.summary + "\n").utf8))
            found = found || !report.violations.isEmpty
        } catch {
            FileHandle.standardError.write(Data("peez-soak: seed \(seed) on \(store.rawValue) could not be run: \(error)\n".utf8))
            exit(2)
        }
    }
}
exit(found ? 1 : 0)
