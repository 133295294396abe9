# SPDX-License-Identifier: Apache-2.0
# sites.rb: a Ruby program run with ObjectSpace.trace_object_allocations on, for
# tests/e2e/ruby_sites.sh. A class-level cache keeps Records made by a factory method and a
# big buffer made at the top level; the program dumps its heap with ObjectSpace.dump_all to
# ARGV[0] and writes to ARGV[1] what Ruby itself says of a few objects: their address (from
# ObjectSpace.dump) and allocation site (allocation_sourcefile / _sourceline / _method_id).
require 'objspace'
require 'json'

ObjectSpace.trace_object_allocations_start

class Record
  def initialize(n)
    @label = "record-#{n}"
  end
end

class Cache
  @@records = []
  def self.store(n)
    @@records << Record.new(n)
  end

  def self.records
    @@records
  end
end

def make_buffer
  'z' * 200_000
end

200.times { |i| Cache.store(i) }
BUFFER = make_buffer
GC.start

def site(obj)
  { 'address' => JSON.parse(ObjectSpace.dump(obj))['address'],
    'file' => ObjectSpace.allocation_sourcefile(obj),
    'line' => ObjectSpace.allocation_sourceline(obj),
    'method' => ObjectSpace.allocation_method_id(obj).to_s }
end

File.open(ARGV[0], 'w') { |f| ObjectSpace.dump_all(output: f) }
File.write(ARGV[1], JSON.generate({
  'record' => site(Cache.records[7]),
  'label' => site(Cache.records[7].instance_variable_get(:@label)),
  'records' => site(Cache.records),
  'buffer' => site(BUFFER)
}))
