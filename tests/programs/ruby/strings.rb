# strings.rb: duplicate strings and singleton classes for tests/e2e/ruby_strings.sh. Builds
# COPIES copies of one 200-byte string at run time, frozen literals (one fstring however many
# times they are named), shared substrings (which point at another string's buffer) and
# singleton classes (51 Foos, 31 of them with one); writes an ObjectSpace.dump_all dump to ARGV[0] and Ruby's own figures
# (from ObjectSpace, and ObjectSpace.dump of each string for its shared flag) to ARGV[1].
require 'objspace'
require 'json'

COPIES = 10_000
unit = [104, 101, 108, 108, 111].pack('C*') # "hello", built so no literal holds it
$copies = Array.new(COPIES) { unit * 40 }   # 10,000 distinct 200-byte strings, one value
$frozen = Array.new(50) { 'a frozen literal'.freeze } # one fstring, named 50 times
big = 'z' * 4000
$shared = Array.new(100) { big[1000..] } # 100 equal tails sharing big's buffer
$dups = Array.new(100) { big.dup }       # 100 that share big's buffer too
$big = big

class Foo
  def self.cm; end
end
$obj = Foo.new
class << $obj
  def only_here; end
end
$extended = Array.new(30) { Foo.new.extend(Comparable) } # 30 more with singleton classes
$plain = Array.new(20) { Foo.new }

GC.start
File.open(ARGV[0], 'w') { |f| ObjectSpace.dump_all(output: f) }

# Ruby's copies of text: [count, memsize of one] of the non-shared strings equal to it whose
# memsize is that of `like` (leakray groups equal values of equal size), and how many strings
# with the text are shared (no copy of their own).
def copies(text, like)
  size = ObjectSpace.memsize_of(like)
  n = shared = 0
  # gathered first: parsing a dump makes new strings with the text, which each_object would
  # go on to visit
  same = ObjectSpace.each_object(String).select { |s| !s.equal?(text) && s == text }
  same.each do |s|
    if JSON.parse(ObjectSpace.dump(s))['shared']
      shared += 1
    elsif ObjectSpace.memsize_of(s) == size
      n += 1
    end
  end
  [n, size, shared]
end

value = unit * 40 # no member of the dump: copies() leaves it out
n, size, = copies(value, $copies[0])
fl, fsize, = copies(+'a frozen literal', $frozen[0])
_, _, zshared = copies('z' * 3000, $shared[0])
File.write(ARGV[1], JSON.generate({
  'value' => value, 'count' => n, 'bytes' => size, 'wasted' => (n - 1) * size,
  'frozen_objects' => fl, 'frozen_distinct' => $frozen.map(&:object_id).uniq.size,
  'frozen_bytes' => fsize, 'shared_tails' => zshared,
  'foo_singleton' => Foo.singleton_class.inspect,
  'obj_singleton' => $obj.singleton_class.inspect,
  'foos' => ObjectSpace.each_object(Foo).count,
}))
