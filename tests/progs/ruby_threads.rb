# ruby_threads.rb - a Ruby script with threads: 4 threads each build an
# array of strings and a hash, sort and join them (strings longer than 23
# bytes keep their characters in malloc'd buffers), and take NATIVE blocks
# of 3333 bytes with Fiddle.malloc (ruby_xmalloc: one malloc of exactly that
# size each), freeing all but the first; the main thread prints one line per
# thread in thread order.
#
# Expected facts (tests/e2e/real-ruby.sh):
#   blocks of 3333 bytes: 4 x 100 = 400 allocations (1333200 bytes); 4
#   blocks (13332 bytes) live at exit.
# stdout:
#   thread T: 20000 words, 3000 distinct, length 619999, native 100
#   (T = 0..3; 20000 words of 30 characters and 19999 commas)
#   threads 4 done
# and exit status 6.
require 'fiddle'

THREADS = 4
WORDS = 20000
NATIVE = 100
NATIVE_BYTES = 3333

def native_blocks
  blocks = Array.new(NATIVE) { Fiddle.malloc(NATIVE_BYTES) }
  blocks.drop(1).each { |address| Fiddle.free(address) }
  blocks.size
end

def work(id)
  words = []
  counts = Hash.new(0)
  WORDS.times do |i|
    w = format('word-%05d-of-thread-%d-padding', (i * 7919 + id) % 3000, id)
    words << w
    counts[w] += 1
  end
  text = words.sort.join(',')
  [words.size, counts.size, text.size, native_blocks]
end

threads = (0...THREADS).map { |id| Thread.new(id) { |t| work(t) } }
threads.each_with_index do |th, id|
  n, distinct, length, native = th.value
  puts "thread #{id}: #{n} words, #{distinct} distinct, length #{length}, native #{native}"
end
puts "threads #{THREADS} done"
exit 6
