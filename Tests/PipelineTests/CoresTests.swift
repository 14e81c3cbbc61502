import Foundation
import Testing
@testable import Pipeline

@Suite("Cores: what taskset, a cpuset or a CPU quota leaves the process")
struct CoresTests {
    @Test func readsTheKernelsCPULists() {
        #expect(Cores.countList("0-1") == 2)
        #expect(Cores.countList("0") == 1)
        #expect(Cores.countList("0-3,8,10-11") == 7)
        #expect(Cores.countList(" 2") == 1)
        #expect(Cores.countList("") == nil)
        #expect(Cores.countList("3-1") == nil)
        #expect(Cores.countList("0-1-2") == nil)
        #expect(Cores.countList("ff") == nil)
    }

    /// `cpu.max` and `cpu.cfs_quota_us` in whole cores, rounded up: 1.5 cores of quota let two
    /// threads run at once.
    @Test func roundsAQuotaUp() {
        #expect(Cores.quota("200000", "100000") == 2)
        #expect(Cores.quota("150000", "100000") == 2)
        #expect(Cores.quota("50000", "100000") == 1)
        #expect(Cores.quota("max", "100000") == nil)
        #expect(Cores.quota("-1", "100000") == nil)
        #expect(Cores.quota("100000", "0") == nil)
        #expect(Cores.quota(nil, "100000") == nil)
    }

    @Test func neverMoreThanTheMachineOrTheProcessIsAllowed() throws {
        #expect(Cores.usable >= 1)
        #expect(Cores.usable <= ProcessInfo.processInfo.activeProcessorCount)
        #if os(Linux)
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") })
        let allowed = try #require(Cores.countList(line.dropFirst("Cpus_allowed_list:".count)))
        #expect(Cores.usable <= allowed)
        #endif
    }
}
