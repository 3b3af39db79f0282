public import Foundation

/// Partner shops.
public protocol VendorStore: Sendable {
    /// Creates the vendor with `id`; the same id again returns the vendor as first stored, so several
    /// processes may create one vendor at once.
    func createVendor(id: UUID, name: String, category: String, neighbourhood: String, now: Int64) async throws -> Vendor
    func vendor(id: UUID) async throws -> Vendor?
    /// Every vendor, oldest first.
    func vendors() async throws -> [Vendor]
}

extension VendorStore {
    /// Creates a new vendor with a new id.
    public func createVendor(name: String, category: String, neighbourhood: String, now: Int64) async throws -> Vendor {
        try await createVendor(id: UUID(), name: name, category: category, neighbourhood: neighbourhood, now: now)
    }
}
