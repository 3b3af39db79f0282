import ArgumentParser
import CounterApp
import Foundation

extension CounterReport {
    /// A cut-off counter's screen, in the shop's language: when PEEZ cut it off and that it checks no card, then
    /// the sales whose cash goes back to the member (and the call to PEEZ), or, with none, only the call; then how
    /// to bring it back. A sync that finds the cut-off says "give the money back" only when there is money to give.
    static func cutOffLines(_ mark: CounterCutOff, store: CounterStore, texts: CounterTexts) -> [String] {
        var lines = [texts.text(mark.replaced ? "cut_off.replaced" : "cut_off.revoked", ["date": texts.time(mark.at)])]
        do {
            let sales = try store.saleJournal.salesToGiveBack()
            if sales.isEmpty {
                lines.append(texts.text("cut_off.call"))
            } else {
                lines.append(texts.text("cut_off.give_back"))
                for sale in sales {
                    let who =
                        sale.name.map { texts.text("who", ["name": $0, "membership_id": sale.membershipID]) }
                        ?? texts.text("who.no_name", ["membership_id": sale.membershipID])
                    let values = ["who": who, "months": String(sale.months), "amount": String(sale.amountDZD), "time": texts.time(sale.at)]
                    lines.append("  " + texts.text("cut_off.sale", values))
                }
            }
        } catch {
            // A journal that does not read may hold a sale to give back: said, with what is wrong with it.
            lines += [texts.text("cut_off.give_back"), "  \(error)"]
        }
        lines.append(texts.text("cut_off.enrol"))
        return lines.map { texts.language.isRightToLeft ? "\u{200F}" + $0 : $0 }
    }

    /// Says the cut-off on standard error, after forgetting again whatever a cut-off interrupted half-way left.
    static func printCutOff(_ mark: CounterCutOff, store: CounterStore, texts: CounterTexts) {
        do {
            try store.forget(after: mark, now: CardDates.now())
        } catch {
            printError("warning: \(error)")
        }
        printError(cutOffLines(mark, store: store, texts: texts).joined(separator: "\n"))
    }
}

extension CounterFolderOptions {
    /// Runs `body` on the counter's folder unless the service cut the counter off. A cut-off held, or found while
    /// `body` runs (a sync, a sale, a scan report refused for this counter's own credential), is said in the shop's
    /// language and ends the command with exit status 1: a cut-off counter checks no card, sells nothing and
    /// syncs nothing until `peez counter enroll` with a new code.
    func withUsableStore(_ texts: CounterTexts, _ body: (CounterStore) async throws -> Void) async throws {
        let store = self.store
        do {
            if let mark = store.cutOff() { throw mark }
            try await body(store)
        } catch let mark as CounterCutOff {
            CounterReport.printCutOff(mark, store: store, texts: texts)
            throw ExitCode(1)
        }
    }
}
