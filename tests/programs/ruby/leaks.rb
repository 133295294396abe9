# SPDX-License-Identifier: Apache-2.0
# leaks.rb: a Ruby program with three known leaks, dumped with ObjectSpace.dump_all for
# tests/e2e/ruby_heap.sh. (1) a growing constant hash of Session objects, (2) a class-level
# cache (a class variable array of Item objects), (3) closures kept by a global callback
# list, each holding a Payload, (4) strings held by an anonymous and a singleton class,
# (5) a small class tree (Shape, Circle < Shape, Square < Shape including a module) whose
# instances a global keeps. It writes the dump to ARGV[0] and, to ARGV[1], the counts Ruby
# itself reports (ObjectSpace.each_object) so the test compares leakray with Ruby.
require 'objspace'
require 'json'

class Session
  def initialize(n)
    @name = "session-#{n}"
    @data = 'x' * 512
  end
end

class Item
  @@items = []
  def self.remember(item)
    @@items << item
  end

  def initialize(n)
    @n = n
  end
end

class Payload
  def initialize
    @blob = 'y' * 2048
  end
end

SESSIONS = {}
300.times { |i| SESSIONS["user-#{i}"] = Session.new(i) }
150.times { |i| Item.remember(Item.new(i)) }
$callbacks = []
40.times do
  p = Payload.new
  $callbacks << proc { p }
end
# (4) memory held through an object's class alone: an anonymous class's instance variable
# (1,000,000 bytes), and a singleton class's (500,000 bytes), each class kept only by the one
# object a global keeps
$anon = Class.new { @big = 'z' * 1_000_000 }.new
$single = Object.new
$single.singleton_class.instance_variable_set(:@cache, 'w' * 500_000)

# (5) subclasses: `--watch Shape` takes a Circle and a Square too (their dump records name
# their superclass; Square's is the module's include class, whose own is Shape)
module Drawable; end
class Shape; end
class Circle < Shape; end
class Square < Shape
  include Drawable
end
$shapes = [Shape.new, Circle.new, Circle.new, Square.new]

GC.start
File.open(ARGV[0], 'w') { |f| ObjectSpace.dump_all(output: f) }
# (6) the same heap with its empty slots listed too
File.open("#{ARGV[0]}.full", 'w') { |f| ObjectSpace.dump_all(output: f, full: true) }
counts = {
  'Session' => ObjectSpace.each_object(Session).count,
  'Item' => ObjectSpace.each_object(Item).count,
  'Payload' => ObjectSpace.each_object(Payload).count,
  'Proc' => ObjectSpace.each_object(Proc).count,
  'Hash' => ObjectSpace.each_object(Hash).count,
  'Shape+' => ObjectSpace.each_object(Shape).count
}
File.write(ARGV[1], JSON.generate(counts))
