from lucasrag_cli import main

main()
