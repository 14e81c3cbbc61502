import Diagnostics
import Foundation
import Testing
@testable import Transforms
@testable import Pipeline
import PipelineFile

@Suite("uuid transform")
struct TransformUUIDTests {
    @Test("a version 5 UUID of the values, as Python's uuid.uuid5 computes it; the same every time, different for other values")
    func nameBased() throws {
        // python3 -c "import uuid; print(uuid.uuid5(uuid.NAMESPACE_DNS, 'pipectl.record'))"
        #expect(UUIDTransform.defaultNamespace.uuidString == "0B1AB72C-5A5C-5688-9E4E-C94BD60F4870")
        let (step, fields) = try TransformFixture.bind("uuid", "{ field: id, from: [name] }", fields: ["name", "unit"])
        #expect(fields == ["name", "unit", "id"])
        var milk = TransformFixture.record(["Milk", "l"])
        try step.apply(&milk)
        // uuid.uuid5(uuid.UUID('0b1ab72c-5a5c-5688-9e4e-c94bd60f4870'), 'Milk')
        #expect(milk.values[2] == .text("FCF60E22-313F-5682-9537-F6E589D3F5E3"))
        var again = TransformFixture.record(["Milk", "ml"])
        try step.apply(&again)
        #expect(again.values[2] == milk.values[2])
        var eggs = TransformFixture.record(["Eggs", "l"])
        try step.apply(&eggs)
        #expect(eggs.values[2] != milk.values[2])
        var empty = TransformFixture.record(["", "l"])
        try step.apply(&empty)
        #expect(empty.values[2] == .null)
    }

    @Test("several fields joined by U+001F; a namespace of the pipeline's own")
    func severalFieldsAndANamespace() throws {
        let (step, _) = try TransformFixture.bind("uuid", "{ field: id, from: [name, unit], namespace: 6BA7B811-9DAD-11D1-80B4-00C04FD430C8 }",
                                                  fields: ["id", "name", "unit"])
        var record = TransformFixture.record(["", "Milk", "l"])
        try step.apply(&record)
        // python3 -c "import uuid; print(uuid.uuid5(uuid.NAMESPACE_URL, 'Milk\x1fl'))"
        #expect(record.values[0] == .text("7944034B-F30B-5777-AAA6-5840355E0F89"))
        let namespace = #expect(throws: PipelineError.self) {
            try TransformFixture.bind("uuid", "{ field: id, from: name, namespace: nope }", fields: ["name"])
        }
        #expect(namespace?.code == .pipelineInvalidUUID)
    }
}
