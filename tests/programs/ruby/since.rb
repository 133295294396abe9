# SPDX-License-Identifier: Apache-2.0
# since.rb DUMP EXPECT: a dump_all(since:) dump, as heap-growth tools take one: only the
# objects allocated after a GC generation, so the classes defined before it (Early) are not
# in the dump while their new instances are. EXPECT: {"late": N, "early": N}.
require "json"
require "objspace"
class Early
  def initialize
    @v = "x" * 10
  end
end
ObjectSpace.trace_object_allocations_start
GC.start
gen = GC.count
class Late
  def initialize
    @e = Early.new
  end
end
$keep = Array.new(50) { Late.new }
File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f, since: gen) }
File.write(ARGV[1], JSON.generate({"late" => 50, "early" => 50}))
