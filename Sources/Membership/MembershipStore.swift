/// The whole ledger's storage, as one SQL implementation serves it: every aggregate's store, and a health check.
///
/// Callers take the narrowest store they need (``LedgerStore`` for a sale, ``CardStore`` for a card); the
/// service's wiring holds this one. Errors the caller can act on are ``MembershipError``s (`notFound`,
/// `conflict`, ...).
public protocol MembershipStore: MemberStore, VendorStore, CredentialStore, AuditStore, LedgerStore, CardStore, RevocationStore,
    ScanStore, WalletStore, ConsoleSummaryStore, ConsoleLookupStore, CounterDeviceStore, ConsoleSessionStore, PaymentStore,
    ShopAccountStore
{
    /// Throws unless the database answers (one trivial query).
    func ping() async throws
}
