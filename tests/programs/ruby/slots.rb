# slots.rb: three dumps for `leakray leaks` where Ruby hands freed heap slots to new objects,
# for tests/e2e/ruby_leaks.sh. The baseline holds 2,000 Temp objects; they are dropped, and
# 200 requests each make 50 short-lived objects and one Leaked kept in LEAKS, so many a
# Leaked sits where a Temp was. The main thread keeps 50 TlsItems in a thread-local, and a
# worker thread a global holds sleeps; 300 objects older than the baseline get a WeakRef
# each, dropped at once. Writes ARGV[0]-{base,target,final}.json and Ruby's
# figures to ARGV[1].
require 'objspace'
require 'json'
require 'weakref'

class Temp; end
class Leaked
  def initialize(i) = @i = i
end
class TlsItem; end
LEAKS = []

def dump(path)
  GC.start
  File.open(path, 'w') { |f| ObjectSpace.dump_all(output: f) }
end

Thread.current[:cache] = Array.new(50) { TlsItem.new }
$worker = Thread.new { sleep }
sleep 0.05 until $worker.status == 'sleep'
$temps = Array.new(2000) { Temp.new }
$configs = Array.new(300) { Object.new } # long-lived; each gets a WeakRef below
# warm the request path so its call caches exist before the baseline
LEAKS << Leaked.new(-1)
LEAKS.clear
dump("#{ARGV[0]}-base.json")
$temps = nil
GC.start
200.times do |i|
  50.times { Object.new }
  LEAKS << Leaked.new(i)
end
# a WeakRef dropped at once registers a finalizer for its object: one hidden array each in
# the finalizer table, for the object's life (VM bookkeeping, no leak)
$configs.each { |c| WeakRef.new(c) }
dump("#{ARGV[0]}-target.json")
dump("#{ARGV[0]}-final.json")
File.write(ARGV[1], JSON.generate({
  'leaked' => ObjectSpace.each_object(Leaked).count,
  'main_thread' => format('0x%x', Thread.main.object_id),
  'item' => ObjectSpace.dump(Thread.current[:cache][7])[/"address":"(0x\h+)"/, 1],
  'main' => ObjectSpace.dump(Thread.main)[/"address":"(0x\h+)"/, 1],
  'worker' => ObjectSpace.dump($worker)[/"address":"(0x\h+)"/, 1],
}))
