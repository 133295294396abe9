# batches.rb: two trios of dumps for `leakray leaks`, taken under
# ObjectSpace.trace_object_allocations_start, so each object carries its GC generation, for
# tests/e2e/ruby_batches.sh. Ruby gives a freed heap slot, and its address, to the next
# object, often one of the same class.
#   a: a batch of 1,000 Jobs alive at the target dump is dropped and the next batch made
#      before the final one, much of it in the first batch's slots: no Job leaks. Between the
#      baseline and the target 100 StringIOs (C-implemented objects, none alive at the
#      baseline) leak into a constant, each holding its buffer string, and a memo hash
#      older than the baseline gets 50 keys and values: 100 strings that leak on their own.
#   b: 1,000 Jobs in flight at the baseline, among long-lived Keeps, are dropped; 1,000 Jobs
#      then leak into a constant, many in the dropped ones' slots.
# `batches.rb PREFIX FIGURES [b]` writes PREFIX-a{1,2,3}.json (or, with b, PREFIX-b{1,2,3}.json:
# each case in a process of its own) and Ruby's figures to FIGURES.
require 'objspace'
require 'json'
require 'stringio'
ObjectSpace.trace_object_allocations_start

class Job
  def initialize(i) = @i = i
end
class Keep; end
CONNS = []
MEMO = {}

def dump(path)
  GC.start
  GC.start
  File.open(path, 'w') { |f| ObjectSpace.dump_all(output: f) }
end

if ARGV[2] != 'b'
  dump("#{ARGV[0]}-a1.json")
  $batch = Array.new(1000) { |i| Job.new(i) }
  100.times { |i| CONNS << StringIO.new("buf#{i}") }
  50.times { |i| MEMO["key#{i}"] = "value #{i} " + ('x' * 100) }
  dump("#{ARGV[0]}-a2.json")
  $batch = nil
  GC.start
  GC.start
  $next = Array.new(1000) { |i| Job.new(i) }
  dump("#{ARGV[0]}-a3.json")
else
  $long = []
  $batch = Array.new(1000) { |i| $long << Keep.new; Job.new(i) }
  dump("#{ARGV[0]}-b1.json")
  $batch = nil
  GC.start
  GC.start
  LEAK = Array.new(1000) { |i| Job.new(i) }
  dump("#{ARGV[0]}-b2.json")
  dump("#{ARGV[0]}-b3.json")
end
File.write(ARGV[1], JSON.generate({ 'stringio' => ObjectSpace.each_object(StringIO).count,
                                    'jobs' => ObjectSpace.each_object(Job).count }))
