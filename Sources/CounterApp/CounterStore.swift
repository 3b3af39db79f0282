import CardWire
public import Foundation

/// The counter's folder (mode 0700): its state (0600), the state before the last sync, and the vendor secret
/// (0600) when it was given at enrolment. A state is replaced atomically: written to a new file, flushed,
/// then renamed over, so a process killed at any moment leaves the old state or the new one, whole.
public struct CounterStore: Sendable {
    public let folder: String

    public init(folder: String) {
        self.folder = folder
    }

    var statePath: String { folder + "/state.json" }
    var previousPath: String { folder + "/state.previous.json" }
    var secretPath: String { folder + "/vendor-secret" }
    var certificateAuthorityPath: String { folder + "/server-ca.pem" }

    /// The CA file given at enrolment (kept here), which alone vouches for the service's certificate; nil
    /// when the system's root certificates do.
    public var certificateAuthority: String? {
        FileManager.default.fileExists(atPath: certificateAuthorityPath) ? certificateAuthorityPath : nil
    }

    /// Keeps a copy of the CA file given at enrolment, or forgets the one kept (nil: the system's roots again).
    public func saveCertificateAuthority(from path: String?) throws {
        try makeFolder()
        guard let path else {
            if certificateAuthority != nil { try FileManager.default.removeItem(atPath: certificateAuthorityPath) }
            return
        }
        try Self.writeDurably(try Data(contentsOf: URL(fileURLWithPath: path)), to: certificateAuthorityPath)
    }

    /// The log of every verdict this counter gave.
    public var scanLog: ScanLog { ScanLog(path: folder + "/scans.log") }

    /// This counter's id, made at its first use and kept: with the vendor and an entry's number it names a
    /// reported scan, so two tills of one shop never overwrite each other's.
    public func counterID() throws -> UUID {
        let path = folder + "/counter-id"
        if FileManager.default.fileExists(atPath: path) {
            // A damaged id is an error, not a new counter: a new id would report every scan again as another till's.
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                let id = UUID(uuidString: text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { throw CounterStoreError("\(path) is unreadable or damaged; restore it from a backup, or remove it to count as a new till") }
            return id
        }
        try makeFolder()
        let id = UUID()
        try Self.replaceDurably(Data((id.uuidString + "\n").utf8), at: path)
        return id
    }

    /// The number of the last scan-log entry the service confirmed it holds (0: none yet).
    public func reportedThrough() -> Int {
        (try? String(contentsOfFile: folder + "/scans.reported", encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            ?? 0
    }

    /// Records that the service holds every entry up to `seq`.
    public func setReportedThrough(_ seq: Int) throws {
        try Self.replaceDurably(Data("\(seq)\n".utf8), at: folder + "/scans.reported")
    }

    /// Forgets the counter id and how far the log was reported, for a scan log that was started over.
    public func startNewReportSeries() throws {
        for name in ["counter-id", "scans.reported"] where FileManager.default.fileExists(atPath: folder + "/" + name) {
            try FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    /// The journal of this counter's cash sales.
    public var saleJournal: SaleJournal { SaleJournal(path: folder + "/sales.journal") }

    /// Whether the counter was enrolled here.
    public var isEnrolled: Bool {
        FileManager.default.fileExists(atPath: statePath) || FileManager.default.fileExists(atPath: previousPath)
    }

    /// The state and its trust data: the newest state whose every signature checks, else the previous one,
    /// marked as a fallback (it refuses, it confirms nothing) with a note saying why the newest was refused.
    public func load() throws -> (state: CounterState, trust: CounterTrust, note: String?) {
        var refusals: [String] = []
        for (path, name) in [(statePath, "state"), (previousPath, "previous state")] where FileManager.default.fileExists(atPath: path) {
            do {
                // Bounded before it is read: a whole bundle and its deltas, base64, fit well within twice a bundle.
                let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                guard size <= CounterBundle.maxSize * 2 else { throw CardWireError(.notADocument, "\(size) bytes, larger than any state") }
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                let state = try JSONDecoder().decode(CounterState.self, from: data)
                var trust = try state.trust()
                guard !refusals.isEmpty else { return (state, trust, nil) }
                trust.fallback = refusals.joined(separator: "; ")
                let note = "the \(refusals.joined(separator: "; ")); the previous state refuses cards but confirms none until a sync succeeds"
                return (state, trust, note)
            } catch {
                refusals.append("\(name) (\(path)) was refused: \(error)")
            }
        }
        throw CounterStoreError(
            refusals.isEmpty
                ? "this counter is not enrolled in \(folder): run peez counter enroll --server URL"
                : "no usable trust data: " + refusals.joined(separator: "; ")
        )
    }

    /// What identifies the state on disk as it is now (its file's inode, size and change time): another value
    /// than before means a sync replaced it. One `stat`, cheap enough to ask before every scan.
    public func stateStamp() -> [Int] {
        var status = stat()
        guard stat(statePath, &status) == 0 else { return [] }
        return [Int(status.st_ino), Int(status.st_size), Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec)]
    }

    /// Replaces the state atomically, keeping the one it replaces as the previous state.
    public func save(_ state: CounterState) throws {
        try makeFolder()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let temporary = folder + "/state.json.new"
        try Self.writeDurably(try encoder.encode(state), to: temporary)
        if FileManager.default.fileExists(atPath: statePath) {
            guard rename(statePath, previousPath) == 0 else {
                throw CounterStoreError("cannot keep the previous state: \(String(cString: strerror(errno)))")
            }
        }
        guard rename(temporary, statePath) == 0 else { throw CounterStoreError("cannot install the new state: \(String(cString: strerror(errno)))") }
        Self.syncFolder(folder)
    }

    /// The vendor secret kept at enrolment, if any.
    public func savedSecret() throws -> String? {
        guard FileManager.default.fileExists(atPath: secretPath) else { return nil }
        var info = stat()
        guard stat(secretPath, &info) == 0, info.st_mode & 0o077 == 0 else {
            throw CounterStoreError("\(secretPath) can be read by other users; chmod 600 \(secretPath)")
        }
        return try String(contentsOfFile: secretPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Keeps the vendor secret (mode 0600) for later syncs.
    public func saveSecret(_ secret: String) throws {
        try makeFolder()
        try Self.writeDurably(Data((secret + "\n").utf8), to: secretPath)
    }

    private func makeFolder() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Writes `data` to a new file of mode 0600 and flushes it to the disk.
    static func writeDurably(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CounterStoreError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        _ = fchmod(descriptor, 0o600)
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard written, fsync(descriptor) == 0 else { throw CounterStoreError("cannot write \(path): \(String(cString: strerror(errno)))") }
    }

    /// Replaces the file at `path` atomically: a new file, flushed, renamed over it, the folder flushed.
    static func replaceDurably(_ data: Data, at path: String) throws {
        try writeDurably(data, to: path + ".new")
        guard rename(path + ".new", path) == 0 else { throw CounterStoreError("cannot replace \(path): \(String(cString: strerror(errno)))") }
        syncFolder((path as NSString).deletingLastPathComponent)
    }

    static func syncFolder(_ folder: String) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}

/// A counter folder that cannot be used, with what to do about it.
public struct CounterStoreError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
