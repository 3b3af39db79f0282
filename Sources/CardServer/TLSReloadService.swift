public import CardServices
import Logging
public import Membership
public import ServiceLifecycle

/// Looks for a renewed TLS certificate every ``interval``, and at once on SIGHUP, and takes it
/// (``ServerTLS/reloadIfChanged()``): no restart, no dropped connection. What it took, or could not, is logged and recorded in ``ServiceParts``.
public struct TLSReloadService: Service {
    let tls: ServerTLS
    let parts: ServiceParts
    let clock: WallClock
    let interval: Duration
    private let logger = Logger(label: "peez.tls")

    public init(tls: ServerTLS, parts: ServiceParts, clock: WallClock, interval: Duration = .seconds(60)) {
        self.tls = tls
        self.parts = parts
        self.clock = clock
        self.interval = interval
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: interval)
            reloadNow()
        }
    }

    /// Takes renewed files now, if they changed (the service's SIGHUP, and each interval).
    public func reloadNow() {
        switch tls.reloadIfChanged() {
        case .unchanged:
            break
        case .reloaded:
            logger.info("TLS certificate reloaded from \(tls.certificateChainPath); it ends at \(tls.notAfter)")
            parts.record(tls: tls, now: clock())
        case .failed(let reason):
            logger.warning("the renewed TLS files cannot be used, the certificate loaded before stays in use: \(reason)")
        }
    }
}

extension ServiceParts {
    /// Records the TLS certificate in use and its end: unavailable once it has ended.
    public func record(tls: ServerTLS, now: Int64) {
        note(Expiry(name: "TLS certificate", setting: "PEEZ_TLS_CERTIFICATE", notAfter: tls.notAfter))
        if tls.notAfter < now {
            markUnavailable(.tls, "the TLS certificate (PEEZ_TLS_CERTIFICATE) has ended: renew it")
        } else {
            markWorking(.tls)
        }
    }
}
